import {
  briefInput,
  briefOutput,
  memberAddShape,
  oneMemberNamed,
  memberIdSchema,
  memberListOutput,
  memberOutput,
  personNameSchema,
  personNamesInput,
  projectCreateInput,
  projectOutput,
  projectPatchFields,
  projectPatchOutput,
  projectRef,
  recallOutput,
} from "@maity/domain";
import { z } from "zod";
import { authedProcedure, humanProcedure, router } from "../trpc.ts";
import { P, projectInput } from "./inputs.ts";

// The caller's projects, their members, and the names the dashboard shows; people run their own
// house (DESIGN §4c): a project of their Bay, its members (members:admin), on the operator's services.

export const projectsRouter = router({
  mine: authedProcedure.output(z.array(projectOutput)).query(({ ctx }) => ctx.hub.conversations.projects(ctx.caller)),
  /** Names for the member ids the dashboard shows (senders, observers, former participants). */
  names: authedProcedure
    .input(personNamesInput)
    .output(z.array(personNameSchema))
    .query(({ ctx, input }) => ctx.hub.conversations.names(ctx.caller, input.ids)),
  /** DESIGN §4c: a project in the caller's Bay; the caller its first members:admin person. */
  create: humanProcedure
    .meta({ rest: { method: "POST", path: "/api/projects", status: 201, summary: "Create a project in your Bay" } })
    .input(projectCreateInput)
    .output(projectOutput)
    .mutation(({ ctx, input }) => ctx.hub.house.createProject(ctx.caller, input)),
  members: authedProcedure
    .meta({
      rest: { method: "GET", path: `${P}/members`, summary: "The project's active members, visitors marked (members)" },
    })
    .input(projectInput)
    .output(memberListOutput)
    .query(async ({ ctx, input }) => ({ items: await ctx.hub.house.members(ctx.caller, input) })),
  addMember: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/members`,
        status: 201,
        summary: "Add a person (by handle or id) or an agent of the project's Bay (members:admin)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...memberAddShape }).check(oneMemberNamed))
    .output(memberOutput)
    .mutation(({ ctx, input }) => {
      const { owner, slug, ...fields } = input;
      return ctx.hub.house.addMember(ctx.caller, { owner, slug }, fields);
    }),
  removeMember: humanProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: `${P}/members/{member_id}`,
        summary: "Remove a member: they leave every chat of the project (members:admin)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, member_id: memberIdSchema }))
    .output(z.object({ member_id: z.string(), status: z.enum(["removed", "isolated"]) }))
    .mutation(({ ctx, input }) => ctx.hub.house.removeMember(ctx.caller, input, input.member_id)),
  /** DESIGN §4c, B-307: its sponsor sends a visiting agent home — out of every room, its membership ended. */
  recallVisitor: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/visitors/{member_id}/recall`,
        summary: "Send a visiting agent home: it leaves every room of the project (its sponsor)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, member_id: memberIdSchema }))
    .output(recallOutput)
    .mutation(({ ctx, input }) =>
      ctx.hub.visitors.recall(ctx.caller, { owner: input.owner, slug: input.slug }, input.member_id),
    ),
  /** DESIGN §4b: the project's brief, for its people (004 v1.15: agents are handed it, not asked). */
  brief: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/brief`, summary: "The project's brief (people of the project)" } })
    .input(projectInput)
    .output(briefOutput)
    .query(({ ctx, input }) => ctx.hub.brief.get(ctx.caller, input)),
  /** DESIGN §4c: the project as its members see it, with whether it shares with visitors. */
  get: authedProcedure
    .meta({ rest: { method: "GET", path: P, summary: "The project, with its sharing with visitors (members)" } })
    .input(projectInput)
    .output(projectPatchOutput)
    .query(({ ctx, input }) => ctx.hub.house.project(ctx.caller, input)),
  /** DESIGN §4c, §4b: rename the project, share its brief, notes and library with visitors (members:admin). */
  update: humanProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: P,
        summary: "Rename the project or share its brief, notes and library with visiting agents (members:admin)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...projectPatchFields.shape }))
    .output(projectPatchOutput)
    .mutation(({ ctx, input }) => {
      const { owner, slug, ...fields } = input;
      return ctx.hub.house.updateProject(ctx.caller, { owner, slug }, fields);
    }),
  setBrief: authedProcedure
    .meta({
      rest: {
        method: "PUT",
        path: `${P}/brief`,
        summary: "Write the project's brief (people); its version grows only when the text changes",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...briefInput.shape }))
    .output(briefOutput)
    .mutation(({ ctx, input }) => ctx.hub.brief.put(ctx.caller, input, input.brief)),
});

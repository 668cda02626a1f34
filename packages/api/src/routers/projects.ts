import {
  briefInput,
  briefOutput,
  projectSharingInput,
  projectSharingOutput,
  personNameSchema,
  personNamesInput,
  projectMemberSchema,
  projectOutput,
  projectRef,
} from "@maity/domain";
import { z } from "zod";
import { authedProcedure, router } from "../trpc.ts";
import { P, projectInput } from "./inputs.ts";

// The caller's projects, their members, and the names the dashboard shows.

export const projectsRouter = router({
  mine: authedProcedure.output(z.array(projectOutput)).query(({ ctx }) => ctx.hub.conversations.projects(ctx.caller)),
  /** Names for the member ids the dashboard shows (senders, observers, former participants). */
  names: authedProcedure
    .input(personNamesInput)
    .output(z.array(personNameSchema))
    .query(({ ctx, input }) => ctx.hub.conversations.names(ctx.caller, input.ids)),
  members: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/members`, summary: "The project's active members (members only)" } })
    .input(projectInput)
    .output(z.array(projectMemberSchema))
    .query(({ ctx, input }) => ctx.hub.conversations.members(ctx.caller, input)),
  /** DESIGN §4b: the project's brief, for its people (004 v1.15: agents are handed it, not asked). */
  brief: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/brief`, summary: "The project's brief (people of the project)" } })
    .input(projectInput)
    .output(briefOutput)
    .query(({ ctx, input }) => ctx.hub.brief.get(ctx.caller, input)),
  /** DESIGN §4b: whether visiting agents read the brief, the notes and the library (members:admin). */
  setSharing: authedProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: P,
        summary: "Share the project's brief, notes and library with visiting agents (members:admin)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...projectSharingInput.shape }))
    .output(projectSharingOutput)
    .mutation(({ ctx, input }) => ctx.hub.brief.setSharing(ctx.caller, input, input.share_with_visitors)),
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

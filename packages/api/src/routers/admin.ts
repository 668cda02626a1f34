import {
  addMemberInput,
  agentOutput,
  createAgentInput,
  createHumanAdminInput,
  createProjectInput,
  humanOutput,
  memberIdSchema,
  memberOutput,
  mintTokenInput,
  projectOutput,
  projectRef,
  removeMemberReason,
  revokeTokenInput,
} from "@maity/domain";
import { z } from "zod";
import { adminProcedure, router } from "../trpc.ts";
import { pick, projectInput } from "./inputs.ts";

// The operator's routes (/api/admin): people, agents, projects, their members and tokens.

export const adminRouter = router({
  createHuman: adminProcedure
    .meta({ rest: { method: "POST", path: "/api/admin/humans", status: 201, summary: "Create a human (operator)" } })
    .input(createHumanAdminInput)
    .output(humanOutput)
    .mutation(({ ctx, input }) => ctx.hub.admin.createHuman(input)),
  createAgent: adminProcedure
    .meta({
      rest: { method: "POST", path: "/api/admin/agents", status: 201, summary: "Create an agent profile (operator)" },
    })
    .input(createAgentInput)
    .output(agentOutput)
    .mutation(({ ctx, input }) => ctx.hub.admin.createAgent(input)),
  createProject: adminProcedure
    .meta({
      rest: { method: "POST", path: "/api/admin/projects", status: 201, summary: "Create a project (operator)" },
    })
    .input(createProjectInput)
    .output(projectOutput.omit({ archived: true }))
    .mutation(({ ctx, input }) => ctx.hub.admin.createProject(input)),
  addMember: adminProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/admin/projects/{owner}/{slug}/members",
        status: 201,
        summary: "Add a member to a project (operator)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...addMemberInput.shape }))
    .output(memberOutput)
    .mutation(({ ctx, input }) => ctx.hub.admin.addMember(input, pick(input, ["member_id", "permissions"]))),
  removeMember: adminProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/api/admin/projects/{owner}/{slug}/members/{member_id}",
        summary: "Remove or isolate a member (operator)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, member_id: memberIdSchema, reason: removeMemberReason.optional() }))
    .output(memberOutput.pick({ member_id: true, status: true }))
    .mutation(({ ctx, input }) => ctx.hub.admin.removeMember(input, input.member_id, input.reason)),
  archiveProject: adminProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/admin/projects/{owner}/{slug}/archive",
        summary: "Archive a project (operator)",
      },
    })
    .input(projectInput)
    .output(projectOutput)
    .mutation(({ ctx, input }) => ctx.hub.admin.archiveProject(input)),
  mintToken: adminProcedure
    .meta({
      rest: { method: "POST", path: "/api/admin/tokens", status: 201, summary: "Mint a token for a member (operator)" },
    })
    .input(mintTokenInput)
    .output(z.object({ token: z.string(), member_id: z.string(), kind: z.enum(["human", "agent"]) }))
    .mutation(({ ctx, input }) => ctx.hub.admin.mintToken(input)),
  revokeToken: adminProcedure
    .meta({ rest: { method: "POST", path: "/api/admin/tokens/revoke", summary: "Revoke a token (operator)" } })
    .input(revokeTokenInput)
    .output(z.object({ revoked: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.hub.admin.revokeToken(input)),
});

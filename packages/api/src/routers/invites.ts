import {
  inviteAcceptOutput,
  inviteCode,
  inviteCreatedSchema,
  inviteCreateFields,
  inviteListOutput,
  invitePreviewSchema,
  inviteSchema,
  projectRef,
  text,
} from "@maity/domain";
import { z } from "zod";
import { humanProcedure, publicProcedure, router } from "../trpc.ts";
import { P, projectInput } from "./inputs.ts";

// Invite links (issue 29, DESIGN §4c): a project's admins make, list and revoke them; anyone holding
// a valid code sees where it leads; a signed-in person joins with it (sign-up is auth.signup).

const inviteId = text("an invite id").min(1, "required").max(100, "an invite id");

export const invitesRouter = router({
  create: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/invites`,
        status: 201,
        summary: "Make an invite link: an expiry, a number of uses; the code shown once (members:admin)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...inviteCreateFields.shape }))
    .output(inviteCreatedSchema)
    .mutation(({ ctx, input }) => {
      const { owner, slug, ...fields } = input;
      return ctx.hub.invites.create(ctx.caller, { owner, slug }, fields);
    }),
  list: humanProcedure
    .meta({
      rest: { method: "GET", path: `${P}/invites`, summary: "The project's invites, never a code (members:admin)" },
    })
    .input(projectInput)
    .output(inviteListOutput)
    .query(async ({ ctx, input }) => ({ items: await ctx.hub.invites.list(ctx.caller, input) })),
  revoke: humanProcedure
    .meta({ rest: { method: "DELETE", path: `${P}/invites/{invite_id}`, summary: "Revoke an invite (members:admin)" } })
    .input(z.strictObject({ ...projectRef.shape, invite_id: inviteId }))
    .output(inviteSchema)
    .mutation(({ ctx, input }) => ctx.hub.invites.revoke(ctx.caller, input, input.invite_id)),
  preview: publicProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/invites/{code}",
        summary:
          "Where a valid invite leads; the status alone for an expired, spent or revoked one; 404 for a wrong one",
      },
    })
    .input(z.strictObject({ code: inviteCode }))
    .output(invitePreviewSchema)
    .query(({ ctx, input }) => ctx.hub.invites.preview(input.code)),
  accept: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/invites/{code}/accept",
        summary: "Join the invite's project (a member already: nothing is spent)",
      },
    })
    .input(z.strictObject({ code: inviteCode }))
    .output(inviteAcceptOutput)
    .mutation(({ ctx, input }) => ctx.hub.invites.accept(ctx.caller, input.code)),
});

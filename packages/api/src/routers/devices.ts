import {
  deviceApproveInput,
  deviceDenyInput,
  deviceListOutput,
  deviceLoginInput,
  deviceLoginOpenedSchema,
  deviceLoginPollInput,
  deviceLoginPollSchema,
  deviceLoginViewSchema,
  text,
} from "@maity/domain";
import { z } from "zod";
import { humanProcedure, publicProcedure, router, spendBudget, toTRPCError } from "../trpc.ts";

// Device login (issue 30, DESIGN §4e, B-324): the computer's two pre-auth routes under
// /api/device-api (camelCase, as the reverse link's), the person's decision and devices.

/** The pre-auth routes spend the client address's budget, as pairing and linking do (B-010). */
const preauth = publicProcedure.use(({ ctx, next }) => {
  const refused = spendBudget(ctx.hub, { bucket: "preauth" }, ctx.address ?? "unknown");
  if (refused) throw toTRPCError(refused);
  return next({ ctx });
});
const approveCode = z.strictObject({ code: text("a login code").min(1, "required").max(64, "a login code") });

export const devicesRouter = router({
  open: preauth
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/login",
        status: 201,
        summary: "Open a device login (no token): the person approves it at approveUrl (maity login)",
      },
    })
    .input(deviceLoginInput)
    .output(deviceLoginOpenedSchema)
    .mutation(({ ctx, input }) => ctx.hub.devices.open(input, ctx.baseUrl ?? "")),
  poll: preauth
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/login/{id}/poll",
        summary: "Poll a device login with its secret: pending, denied, expired, or one credential per Bay once",
      },
    })
    .input(deviceLoginPollInput)
    .output(deviceLoginPollSchema)
    .mutation(({ ctx, input }) => ctx.hub.devices.poll(input.id, input.secret, ctx.baseUrl ?? "")),
  logout: preauth
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/logout",
        summary: "Sign this computer out with one of its credentials (maity logout): every Bay of it stops",
      },
    })
    .input(z.strictObject({ token: text("a device credential").min(1, "required").max(200, "a device credential") }))
    .output(z.object({ revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => ctx.hub.devices.logout(input.token)),
  view: humanProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device/{code}",
        summary: "A device login to decide: its label, code and your Bays",
      },
    })
    .input(approveCode)
    .output(deviceLoginViewSchema)
    .query(({ ctx, input }) => ctx.hub.devices.view(ctx.caller, input.code)),
  approve: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device/{code}/approve",
        summary: "Sign the computer in to these Bays of yours",
      },
    })
    .input(deviceApproveInput)
    .output(z.object({ status: z.literal("approved") }))
    .mutation(({ ctx, input }) => ctx.hub.devices.approve(ctx.caller, input.code, input.bays)),
  deny: humanProcedure
    .meta({ rest: { method: "POST", path: "/api/device/{code}/deny", summary: "Refuse a device login" } })
    .input(deviceDenyInput)
    .output(z.object({ status: z.literal("denied") }))
    .mutation(({ ctx, input }) => ctx.hub.devices.deny(ctx.caller, input.code)),
  list: humanProcedure
    .meta({
      rest: { method: "GET", path: "/api/me/devices", summary: "Your signed-in computers and the Bays each opens" },
    })
    .input(z.strictObject({}).optional())
    .output(deviceListOutput)
    .query(({ ctx }) => ctx.hub.devices.list(ctx.caller)),
  revoke: humanProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/api/me/devices/{device_id}",
        summary: "Sign a computer out: its credentials stop",
      },
    })
    .input(z.strictObject({ device_id: text("a device id").min(1, "required").max(60, "a device id") }))
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => ctx.hub.devices.revoke(ctx.caller, input.device_id)),
});

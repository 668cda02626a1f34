import {
  endSessionOutput,
  joinSessionInput,
  joinSessionOutput,
  listGroupsOutput,
  listSessionsOutput,
  sessionCreateGroupInput,
  sessionRefInput,
} from "@maity/domain";
import { z } from "zod";
import type { DeviceCaller } from "@maity/hub";
import { HubError } from "@maity/domain";
import { publicProcedure, router, spendBudget, toTRPCError } from "../trpc.ts";

// The device API's session routes (issue 30, DESIGN §4e, B-310…B-331): a person's `bay_u_` device
// credential without a session named. The remote MCP endpoint's session tools are these routes
// (packages/mcp sessionTools), so the two can never say different things. camelCase, and refusals
// in the agent protocol's `{error, code}` style.

/** A device credential's person; every call spends the person's agent-API budget (B-360). */
const deviceProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.device) throw toTRPCError(HubError.unauthenticated());
  const device: DeviceCaller = ctx.device;
  const refused = spendBudget(ctx.hub, { bucket: "agent" }, device.id);
  if (refused) throw toTRPCError(refused);
  return next({ ctx: { ...ctx, device } });
});

export const sessionsRouter = router({
  join: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/sessions",
        style: "agent",
        summary: "join_session: a group by id or exact title, the Bay's Sessions group, or a private chat",
      },
    })
    .input(joinSessionInput)
    .output(joinSessionOutput)
    .mutation(({ ctx, input }) => ctx.hub.sessions.join(ctx.device, input)),
  list: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/sessions",
        style: "agent",
        summary: "list_sessions: your live sessions in this Bay, and this device's registrations (B-331)",
      },
    })
    .input(z.strictObject({}).optional())
    .output(listSessionsOutput)
    .query(({ ctx }) => ctx.hub.sessions.list(ctx.device)),
  end: deviceProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/api/device-api/sessions/{session}",
        style: "agent",
        summary: "end_session: the session leaves every room; its streams end",
      },
    })
    .input(sessionRefInput)
    .output(endSessionOutput)
    .mutation(({ ctx, input }) => ctx.hub.sessions.end(ctx.device, input.session)),
  groups: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/groups",
        style: "agent",
        summary: "list_groups: the groups you are in, in this Bay — exact title, members, id",
      },
    })
    .input(z.strictObject({}).optional())
    .output(listGroupsOutput)
    .query(({ ctx }) => ctx.hub.sessions.groups(ctx.device)),
  createGroup: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/groups",
        status: 201,
        style: "agent",
        summary: "create_group: a group in a project of this Bay with the calling session in it",
      },
    })
    .input(sessionCreateGroupInput)
    .output(joinSessionOutput)
    .mutation(({ ctx, input }) => ctx.hub.sessions.createGroup(ctx.device, input)),
});

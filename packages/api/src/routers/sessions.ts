import {
  approvalStateSchema,
  approvalViewSchema,
  awaitApprovalInput,
  decideApprovalInput,
  contextReportAnswer,
  contextReportInput,
  deliveryStatusOutput,
  deviceUpdatesOutput,
  deviceUpdatesQuery,
  sessionNameField,
  freshStartInput,
  mySessionsOutput,
  freshStartView,
  relayHandoffReport,
  relayHandoffsOutput,
  listenMessagesInput,
  listenMessagesOutput,
  requestApprovalInput,
  text,
  endSessionOutput,
  joinSessionInput,
  joinSessionOutput,
  listGroupsOutput,
  listSessionsOutput,
  sessionCreateGroupInput,
  sessionRefInput,
} from "@maity/domain";
import { z } from "zod";
import type { DeviceCaller, Hub } from "@maity/hub";
import { HubError } from "@maity/domain";
import { humanProcedure, publicProcedure, router, spendBudget, toTRPCError } from "../trpc.ts";

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

/** A call the session named in its input makes (B-310): its agent identity, or 404 SESSION_NOT_FOUND. */
const asSession = (ctx: { hub: Hub; device: DeviceCaller }, name: string) => ctx.hub.sessions.as(ctx.device, name);

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
  requestApproval: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/approvals",
        status: 201,
        style: "agent",
        summary: "request_approval: a decision card to one person of the room (default your own); answers its id",
      },
    })
    .input(requestApprovalInput)
    .output(approvalStateSchema)
    .mutation(async ({ ctx, input }) => ctx.hub.approvals.request(await asSession(ctx, input.session), input)),
  awaitApproval: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/approvals/{approvalId}",
        style: "agent",
        summary: "await_approval: pending, approved or denied (with the choice and who), held up to wait seconds",
      },
    })
    .input(awaitApprovalInput)
    .output(approvalStateSchema)
    .query(async ({ ctx, input }) =>
      ctx.hub.approvals.await(await asSession(ctx, input.session), input.approvalId, input.wait ?? 0, ctx.signal),
    ),
  listen: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/listen",
        style: "agent",
        summary: "listen_messages: a single-use ticket (5 min) for the session's monitor WebSocket",
      },
    })
    .input(listenMessagesInput)
    .output(listenMessagesOutput)
    .mutation(async ({ ctx, input }) =>
      ctx.hub.listen.issue(await asSession(ctx, input.session), input, ctx.baseUrl ?? ""),
    ),
  deliveryStatus: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/listen/{session}",
        style: "agent",
        summary: "get_delivery_status: awaiting_connection until the monitor opens, then connected",
      },
    })
    .input(sessionRefInput)
    .output(deliveryStatusOutput)
    .query(async ({ ctx, input }) => ctx.hub.listen.status(await asSession(ctx, input.session))),
  stopListening: deviceProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: "/api/device-api/listen/{session}",
        style: "agent",
        summary: "stop_listening: the monitor closes (4000) and pending tickets are void",
      },
    })
    .input(sessionRefInput)
    .output(z.object({ stopped: z.literal(true) }))
    .mutation(async ({ ctx, input }) => ctx.hub.listen.stop(await asSession(ctx, input.session))),
  context: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/context",
        style: "agent",
        invalidCode: "INVALID_CONTEXT_REPORT",
        summary: "A relay's context report for one session (B-283): as POST /api/agent-api/context, session named",
      },
    })
    .input(contextReportInput.safeExtend({ session: sessionNameField }))
    .output(contextReportAnswer)
    .mutation(async ({ ctx, input }) => {
      const { session, ...report } = input;
      return ctx.hub.memory.report(await asSession(ctx, session), report);
    }),
  updates: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/updates",
        style: "agent",
        summary: "The relay's feed: its hosted sessions' messages (each naming its session), registrations (B-331)",
      },
    })
    .input(deviceUpdatesQuery)
    .output(deviceUpdatesOutput)
    .query(({ ctx, input }) => ctx.hub.deviceFeed.updates(ctx.device, input, ctx.signal)),
  handoffs: deviceProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/device-api/handoff",
        style: "agent",
        summary: "The fresh starts of the sessions this computer's relay hosts: the prompt to hand, the window",
      },
    })
    .input(z.strictObject({}).optional())
    .output(relayHandoffsOutput)
    .query(({ ctx }) => ctx.hub.freshStarts.relayPending(ctx.device)),
  reportHandoff: deviceProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/device-api/handoff",
        style: "agent",
        summary: "The hosting relay reports a session cleared (only after its saved note), then fresh",
      },
    })
    .input(relayHandoffReport)
    .output(z.object({ handoffId: z.string(), state: z.enum(["cleared", "fresh"]) }))
    .mutation(({ ctx, input }) => ctx.hub.freshStarts.relayReport(ctx.device, input)),
});

/** A person's terminal sessions (DESIGN §4e): a fresh start with a handoff (B-289…B-296). */
export const mySessionsRouter = router({
  list: humanProcedure
    .meta({
      rest: { method: "GET", path: "/api/me/sessions", summary: "Your terminal sessions: Bay, device, fresh start" },
    })
    .input(z.strictObject({}).optional())
    .output(mySessionsOutput)
    .query(({ ctx }) => ctx.hub.freshStarts.mine(ctx.caller)),
  freshStart: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/sessions/{session_id}/fresh-start",
        status: 201,
        summary: "Start a session of yours fresh: it saves a handoff note first; nothing is cleared without one",
      },
    })
    .input(freshStartInput)
    .output(freshStartView)
    .mutation(({ ctx, input }) => ctx.hub.freshStarts.request(ctx.caller, input)),
  latestFreshStart: humanProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/sessions/{session_id}/fresh-start",
        summary: "Where the latest fresh start of a session of yours stands",
      },
    })
    .input(z.strictObject({ session_id: text("a session's id").min(1, "required").max(100) }))
    .output(freshStartView)
    .query(({ ctx, input }) => ctx.hub.freshStarts.latest(ctx.caller, input.session_id)),
  update: humanProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: "/api/sessions/{session_id}",
        summary: "Let a session of yours start fresh by itself at 95 % (fresh_start_at_95)",
      },
    })
    .input(
      z.strictObject({
        session_id: text("a session's id").min(1, "required").max(100),
        fresh_start_at_95: z.boolean({ error: "true or false" }),
      }),
    )
    .output(z.object({ id: z.string(), name: z.string(), fresh_start_at_95: z.boolean() }))
    .mutation(({ ctx, input }) =>
      ctx.hub.freshStarts.setAutomatic(ctx.caller, input.session_id, input.fresh_start_at_95),
    ),
});

/** The people's side of approvals (B-313): the card's state, and the approver's decision. */
export const approvalsRouter = router({
  get: humanProcedure
    .meta({ rest: { method: "GET", path: "/api/approvals/{approval_id}", summary: "A decision card's state" } })
    .input(z.strictObject({ approval_id: text("an approval id").min(1, "required").max(60) }))
    .output(approvalViewSchema)
    .query(({ ctx, input }) => ctx.hub.approvals.view(ctx.caller, input.approval_id)),
  decide: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/approvals/{approval_id}",
        summary: "Decide an approval asked of you: approved (with one of its options) or denied",
      },
    })
    .input(decideApprovalInput)
    .output(approvalViewSchema)
    .mutation(({ ctx, input }) => ctx.hub.approvals.decide(ctx.caller, input)),
});

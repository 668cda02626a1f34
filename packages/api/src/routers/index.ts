import {
  HubError,
  isHubError,
  addMemberInput,
  addParticipantInput,
  agentOutput,
  conversationPage,
  conversationSchema,
  createAgentInput,
  createGroupInput,
  createHumanInput,
  createProjectInput,
  eventPage,
  eventsQuery,
  groupViewSchema,
  healthOutput,
  humanOutput,
  listConversationsQuery,
  listMessagesQuery,
  loginInput,
  meatProxyInput,
  meConversationPage,
  memberIdSchema,
  memberOutput,
  messagePage,
  messageRoutingInput,
  personNameSchema,
  personNamesInput,
  messageRoutingSchema,
  messageSchema,
  mintTokenInput,
  participationSchema,
  postEventInput,
  postMessageInput,
  liveEventSchema,
  linkCodeSchema,
  linkViewSchema,
  pairingCodeSchema,
  projectMemberSchema,
  projectOutput,
  projectRef,
  redactInput,
  removeMemberReason,
  revokeTokenInput,
  text,
  updateGroupInput,
} from "@maity/domain";
import { type BusMessage, type LogEvent, reaches } from "@maity/hub";
import { tracked } from "@trpc/server";
import { z } from "zod";
import { clearSessionCookie, sessionCookie } from "../session.ts";
import { agentRouter } from "./agent.ts";
import { attachmentsRouter, libraryRouter } from "./library.ts";
import { pollsRouter, reactionsRouter } from "./polls.ts";
import { filesRouter } from "./files.ts";
import { adminProcedure, authedProcedure, humanProcedure, publicProcedure, router, toTRPCError } from "../trpc.ts";

// Every hub route is a procedure here, with its zod input and output side by side; `meta.rest`
// says how the REST adapter serves it (rest/index.ts) and the OpenAPI document describes it
// (openapi.ts). The procedure is the one implementation: REST calls it through createCaller.

const P = "/api/projects/{owner}/{slug}";
const C = `${P}/conversations/{conversation_id}`;
// Issue 13 #3: ids from the path, the Idempotency-Key header and the seq are text() like any input string.
const conversationIdSchema = text("a string").min(1, "required").max(100, "at most 100 characters");
/** A participant id of the path: any id, unknown ones answer not_found (hidden = missing). */
const participantId = text("a string").min(1, "required").max(100, "at most 100 characters");
const projectInput = z.strictObject(projectRef.shape);
const conversationInput = z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema });
const noContent = z.null();
const seqParam = text("a seq").or(z.number().int());
const idempotencyKey = text("a string").min(1, "1–200 characters").max(200, "1–200 characters").optional();
/** tRPC's infinite queries send `direction`; lists page forward only, so it is accepted and ignored. */
const direction = z.enum(["forward", "backward"], { error: "forward or backward" }).optional();
/** A posted message, and whether it is the first answer of a repeated request (Idempotency-Key). */
const postedOutput = z.object({ replayed: z.boolean(), message: messageSchema });
const createGroupOutput = z.object({ replayed: z.boolean(), conversation: groupViewSchema });
/** The fields of the parsed input a service takes (absent ones stay absent), typed by the edge's schema. */
const pick = <T extends Record<string, unknown>, K extends keyof T & string>(input: T, keys: readonly K[]) =>
  Object.fromEntries(keys.filter((k) => input[k] !== undefined).map((k) => [k, input[k]])) as Pick<T, K>;

const GROUP_CHANGES = [
  "title",
  "reply_policy",
  "designated_agent_id",
  "max_agent_rounds",
  "accept_token_cost",
  "custom_rules",
] as const;

const adminRouter = router({
  createHuman: adminProcedure
    .meta({ rest: { method: "POST", path: "/api/admin/humans", status: 201, summary: "Create a human (operator)" } })
    .input(createHumanInput)
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

export const appRouter = router({
  health: publicProcedure
    .meta({ rest: { method: "GET", path: "/api/health", summary: "Health and migrations" } })
    .input(z.strictObject({}).optional())
    .output(healthOutput)
    .query(({ ctx }) => ctx.hub.health()),
  admin: adminRouter,
  /** The agent API (/api/agent-api, 004): one operation per procedure (routers/agent.ts). */
  agent: agentRouter,
  /** Issue 16: the project's file library and the attachment reads (routers/library.ts). */
  library: libraryRouter,
  attachments: attachmentsRouter,
  files: filesRouter,
  auth: router({
    me: publicProcedure
      .output(z.object({ id: z.string(), kind: z.enum(["human", "agent"]), handle: z.string() }).nullable())
      .query(({ ctx }) =>
        ctx.caller ? { id: ctx.caller.id, kind: ctx.caller.kind, handle: ctx.caller.handle } : null,
      ),
    login: publicProcedure
      .input(loginInput)
      .output(z.object({ id: z.string(), handle: z.string(), name: z.string() }))
      .mutation(async ({ ctx, input }) => {
        try {
          const { session, human, expiresAt } = await ctx.hub.auth.login(input, { address: ctx.address ?? null });
          ctx.resHeaders.append("set-cookie", sessionCookie(session, ctx.secure, expiresAt.getTime() - Date.now()));
          return { id: human.id, handle: human.handle, name: human.name };
        } catch (error) {
          // Issue 13 #5: a refused login says when to come back (429 Retry-After).
          const wait = isHubError(error) && error.code === "rate_limited" ? error.details.retry_after : undefined;
          if (wait !== undefined) ctx.resHeaders.set("retry-after", String(wait));
          throw error;
        }
      }),
    logout: humanProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
      if (ctx.session) await ctx.hub.auth.logout(ctx.session);
      ctx.resHeaders.append("set-cookie", clearSessionCookie(ctx.secure));
      return { ok: true as const };
    }),
  }),
  projects: router({
    mine: authedProcedure.output(z.array(projectOutput)).query(({ ctx }) => ctx.hub.conversations.projects(ctx.caller)),
    /** Issue 15: names for the member ids the dashboard shows (senders, observers, former participants). */
    names: authedProcedure
      .input(personNamesInput)
      .output(z.array(personNameSchema))
      .query(({ ctx, input }) => ctx.hub.conversations.names(ctx.caller, input.ids)),
    members: authedProcedure
      .meta({ rest: { method: "GET", path: `${P}/members`, summary: "The project's active members (members only)" } })
      .input(projectInput)
      .output(z.array(projectMemberSchema))
      .query(({ ctx, input }) => ctx.hub.conversations.members(ctx.caller, input)),
  }),
  live: router({
    /**
     * The dashboard's live feed over SSE: listen to the bus first, then backfill from the log after
     * `lastEventId`, and yield `tracked(seq)` so a dropped connection resumes where it stopped.
     * Items say where something happened; the client reloads what it shows (no message is doubled).
     */
    feed: authedProcedure
      .input(z.object({ lastEventId: z.string().nullish() }).optional())
      .subscription(async function* ({ ctx, input, signal }) {
        const caller = ctx.caller;
        // Issue 13 #7: the stream ends when its session is logged out or expires, or its token is
        // revoked — on whichever app instance that happens (the bus); the client hears UNAUTHORIZED.
        const watch = await ctx.hub.auth.watch(
          caller,
          ctx.credential ?? (ctx.session ? { session: ctx.session } : null),
        );
        // Follow the ordered log first (events after the process's head, each once, in seq order),
        // then catch up from the log only for a resume; side messages (typing, redactions, reads) come unordered.
        await ctx.hub.bus.ready();
        const queue: (LogEvent | BusMessage)[] = [];
        let wake: (() => void) | null = null;
        const push = (message: LogEvent | BusMessage) => {
          if (!reaches(message, caller.id)) return;
          queue.push(message);
          wake?.();
        };
        const follower = ctx.hub.bus.follow(push, caller.id);
        const stopSide = ctx.hub.bus.subscribe((m) => m.type !== "event" && push(m));
        const ended = signal ? AbortSignal.any([signal, watch.ended]) : watch.ended;
        const aborted = new Promise<void>((resolve) =>
          ended.addEventListener("abort", () => resolve(), { once: true }),
        );
        try {
          const resumeFrom = Number(input?.lastEventId);
          const resuming = Number.isInteger(resumeFrom) && resumeFrom >= 0;
          let last = resuming ? Math.max(resumeFrom, follower.head) : follower.head;
          if (resuming && resumeFrom < follower.head) {
            for (let after = resumeFrom; ; ) {
              const batch = await ctx.hub.messages.feedSince(caller, after, follower.head);
              for (const item of batch) yield tracked(String(item.seq), liveEventSchema.parse(item));
              after = batch.at(-1)?.seq ?? after;
              if (batch.length < 100) break;
            }
          }
          // The first item of every connection, once the bus is followed and any resume backfilled:
          // "live from here". tRPC's own `connected` comes before this generator runs, so it cannot
          // say that; a client that loaded its page before this item reads what came between.
          yield tracked(String(last), { seq: last, kind: "listening", conversation_id: null, project: null });
          while (!ended.aborted) {
            if (queue.length === 0) await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
            wake = null;
            if (watch.ended.aborted) throw toTRPCError(HubError.unauthenticated());
            for (const m of queue.splice(0)) {
              if (m.type === "event") {
                if (m.seq <= last) continue;
                last = m.seq;
                const item = {
                  seq: m.seq,
                  kind: m.kind,
                  conversation_id: m.conversationId,
                  project: m.project,
                  ...(m.maity ? { message: m.maity } : {}),
                };
                yield tracked(String(m.seq), item);
              } else if (m.type === "typing") {
                // Someone writing (an agent's POST …/typing): shown for a moment, nothing to resume from.
                yield {
                  seq: 0,
                  kind: "typing",
                  conversation_id: m.conversationId,
                  project: m.project,
                  member_id: m.memberId,
                };
              } else if (m.type === "redaction" || m.type === "read") {
                const place = m.project
                  ? { conversation_id: m.conversationId, project: m.project }
                  : await ctx.hub.messages.eventPlace(m.seq);
                // A redaction or a moved read marker changes no seq of the log: nothing to resume from.
                if (place) yield { seq: m.seq, kind: m.type, ...place };
              } else if (m.type === "message_changed") {
                // Issue 16: a vote or a reaction changed message `seq`; the client reloads it.
                yield {
                  seq: m.seq,
                  kind: m.type,
                  conversation_id: m.conversationId,
                  project: m.project,
                  what: m.what,
                };
              }
            }
          }
          if (watch.ended.aborted) throw toTRPCError(HubError.unauthenticated());
        } finally {
          follower.stop();
          stopSide();
          watch.stop();
        }
      }),
  }),
  conversations: router({
    list: authedProcedure
      .meta({
        rest: { method: "GET", path: `${P}/conversations`, summary: "The conversation list of a project (§9.3)" },
      })
      .input(z.strictObject({ ...projectRef.shape, ...listConversationsQuery.shape, direction }))
      .output(conversationPage)
      .query(({ ctx, input }) =>
        ctx.hub.conversations.list(ctx.caller, input, pick(input, ["observed", "limit", "cursor"])),
      ),
    mine: authedProcedure
      .meta({
        rest: {
          method: "GET",
          path: "/api/me/conversations",
          summary: "Every conversation across the caller's projects (§9.3)",
        },
      })
      .input(z.strictObject({ ...listConversationsQuery.shape, direction }).prefault({}))
      .output(meConversationPage)
      .query(({ ctx, input }) => ctx.hub.conversations.mine(ctx.caller, pick(input, ["observed", "limit", "cursor"]))),
    get: authedProcedure
      .meta({
        rest: {
          method: "GET",
          path: C,
          summary: "A conversation: the direct item (§9.1) or the group chat view (§9.2)",
        },
      })
      .input(conversationInput)
      .output(conversationSchema)
      .query(({ ctx, input }) => ctx.hub.conversations.get(ctx.caller, input, input.conversation_id)),
    create: authedProcedure
      .meta({
        rest: {
          method: "POST",
          path: `${P}/conversations`,
          status: 201,
          summary: "Create a group chat (§9.2); a replay with the same Idempotency-Key answers 200",
          headers: { "idempotency-key": "idempotency_key" },
          respond: (out: z.infer<typeof createGroupOutput>) => ({
            status: out.replayed ? 200 : 201,
            body: out.conversation,
          }),
          responseSchema: groupViewSchema,
        },
      })
      .input(z.strictObject({ ...projectRef.shape, ...createGroupInput.shape, idempotency_key: idempotencyKey }))
      .output(createGroupOutput)
      .mutation(async ({ ctx, input }) => {
        const { status, view } = await ctx.hub.groups.create(
          ctx.caller,
          input,
          pick(input, ["title", "participants", "wake"]),
          input.idempotency_key ?? null,
        );
        return { replayed: status === 200, conversation: view };
      }),
    update: authedProcedure
      .meta({
        rest: {
          method: "PATCH",
          path: C,
          summary: "Rename a group chat (§9.2), set its reply policy and custom rules (004 §4)",
        },
      })
      .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...updateGroupInput.shape }))
      .output(groupViewSchema)
      .mutation(({ ctx, input }) => {
        // updateGroupInput's own rule, once the fields themselves passed: something to change.
        const change = pick(input, GROUP_CHANGES);
        if (Object.keys(change).length === 0) throw HubError.invalid({ title: "nothing to change" });
        return ctx.hub.groups.update(ctx.caller, input, input.conversation_id, change);
      }),
    pin: authedProcedure
      .meta({ rest: { method: "PUT", path: `${C}/pin`, status: 204, summary: "Pin a conversation (§9.3)" } })
      .input(conversationInput)
      .output(noContent)
      .mutation(async ({ ctx, input }) => {
        await ctx.hub.conversations.pin(ctx.caller, input, input.conversation_id);
        return null;
      }),
    unpin: authedProcedure
      .meta({ rest: { method: "DELETE", path: `${C}/pin`, status: 204, summary: "Unpin a conversation (§9.3)" } })
      .input(conversationInput)
      .output(noContent)
      .mutation(async ({ ctx, input }) => {
        await ctx.hub.conversations.unpin(ctx.caller, input, input.conversation_id);
        return null;
      }),
    setMeatProxy: authedProcedure
      .meta({
        rest: {
          method: "PUT",
          path: `${C}/meat-proxy`,
          status: 204,
          summary: "Set the meat-proxy lead part for one conversation (§9.3)",
        },
      })
      .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...meatProxyInput.shape }))
      .output(noContent)
      .mutation(async ({ ctx, input }) => {
        await ctx.hub.conversations.setMeatProxy(ctx.caller, input, input.conversation_id, {
          meat_proxy: input.meat_proxy,
        });
        return null;
      }),
  }),
  participants: router({
    add: authedProcedure
      .meta({
        rest: { method: "POST", path: `${C}/participants`, summary: "Add a participant to a group chat (§9.2)" },
      })
      .input(
        z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...addParticipantInput.shape }),
      )
      .output(groupViewSchema)
      .mutation(({ ctx, input }) =>
        ctx.hub.groups.addParticipant(ctx.caller, input, input.conversation_id, pick(input, ["member_id", "wake"])),
      ),
    update: authedProcedure
      .meta({
        rest: {
          method: "PATCH",
          path: `${C}/participants/{member_id}`,
          summary: "Change a participation (wake: not built, refused)",
        },
      })
      .input(
        z.strictObject({
          ...projectRef.shape,
          conversation_id: conversationIdSchema,
          member_id: participantId,
          wake: z.unknown().optional(),
        }),
      )
      .output(participationSchema)
      .mutation(({ ctx, input }) =>
        ctx.hub.groups.updateParticipant(ctx.caller, input, input.conversation_id, input.member_id),
      ),
    remove: authedProcedure
      .meta({
        rest: {
          method: "DELETE",
          path: `${C}/participants/{member_id}`,
          summary: "Remove a participant, or leave with your own id (§9.2)",
        },
      })
      .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, member_id: participantId }))
      .output(participationSchema)
      .mutation(({ ctx, input }) =>
        ctx.hub.groups.removeParticipant(ctx.caller, input, input.conversation_id, input.member_id),
      ),
  }),
  messages: router({
    list: authedProcedure
      .meta({
        rest: {
          method: "GET",
          path: `${C}/messages`,
          summary: "Read the window (after=) or the history (before=) of a conversation",
        },
      })
      .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...listMessagesQuery.shape }))
      .output(messagePage)
      .query(({ ctx, input }) =>
        ctx.hub.messages.list(ctx.caller, input, input.conversation_id, pick(input, ["after", "before", "limit"])),
      ),
    post: authedProcedure
      .meta({
        rest: {
          method: "POST",
          path: `${C}/messages`,
          status: 201,
          summary:
            "Post a chat message; a repeat with the same Idempotency-Key answers the first message (200) and writes nothing",
          headers: { "idempotency-key": "idempotency_key" },
          respond: (out: z.infer<typeof postedOutput>) => ({ status: out.replayed ? 200 : 201, body: out.message }),
          responseSchema: messageSchema,
        },
      })
      .input(
        z.strictObject({
          ...projectRef.shape,
          conversation_id: conversationIdSchema,
          ...postMessageInput.shape,
          idempotency_key: idempotencyKey,
        }),
      )
      .output(postedOutput)
      .mutation(async ({ ctx, input }) => {
        const written = await ctx.hub.messages.post(
          ctx.caller,
          input,
          input.conversation_id,
          pick(input, ["body", "to_instance", "reply_to", "attachments"]),
          input.idempotency_key ?? null,
        );
        return { replayed: written.replayed, message: written.message };
      }),
    /** Issue 15: who the hub asked to answer each message, and why (the stored verdicts); the dashboard's chips. */
    routing: authedProcedure
      .input(
        z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...messageRoutingInput.shape }),
      )
      .output(z.array(messageRoutingSchema))
      .query(({ ctx, input }) => ctx.hub.messages.routing(ctx.caller, input, input.conversation_id, input.seqs)),
    /** Issue 15: the composer says its person is writing (throttled by the dashboard); the others' live feed shows it. */
    typing: authedProcedure
      .input(conversationInput)
      .output(z.object({ ok: z.literal(true) }))
      .mutation(async ({ ctx, input }) => {
        await ctx.hub.messages.typing(ctx.caller, input, input.conversation_id);
        return { ok: true as const };
      }),
    /** The dashboard's "read up to here" after showing messages the live feed brought (issue 12). */
    markRead: authedProcedure
      .input(
        z.strictObject({
          ...projectRef.shape,
          conversation_id: conversationIdSchema,
          seq: z.number({ error: "a message seq" }).int("a message seq").min(0),
        }),
      )
      .output(z.object({ read_marker: z.number().int().nullable() }))
      .mutation(({ ctx, input }) => ctx.hub.messages.markReadUpTo(ctx.caller, input, input.conversation_id, input.seq)),
    redact: authedProcedure
      .meta({
        rest: {
          method: "POST",
          path: `${C}/messages/{seq}/redact`,
          summary: "Redact a message (§8.5); it keeps its place",
        },
      })
      .input(
        z.strictObject({
          ...projectRef.shape,
          conversation_id: conversationIdSchema,
          seq: seqParam,
          ...redactInput.shape,
        }),
      )
      .output(messageSchema)
      .mutation(({ ctx, input }) =>
        ctx.hub.messages.redact(ctx.caller, input, input.conversation_id, String(input.seq), pick(input, ["reason"])),
      ),
  }),
  events: router({
    list: authedProcedure
      .meta({
        rest: { method: "GET", path: `${P}/events`, summary: "The caller's readable events of a project (§8.2)" },
      })
      .input(z.strictObject({ ...projectRef.shape, ...eventsQuery.shape }))
      .output(eventPage)
      .query(({ ctx, input }) => ctx.hub.messages.events(ctx.caller, input, pick(input, ["after", "limit"]))),
    post: authedProcedure
      .meta({
        rest: {
          method: "POST",
          path: `${P}/events`,
          status: 201,
          summary: "Post an event; type chat is the same write as POST …/messages (§8.4), Idempotency-Key included",
          headers: { "idempotency-key": "idempotency_key" },
          respond: (out: z.infer<typeof postedOutput>) => ({ status: out.replayed ? 200 : 201, body: out.message }),
          responseSchema: messageSchema,
        },
      })
      .input(z.strictObject({ ...projectRef.shape, ...postEventInput.shape, idempotency_key: idempotencyKey }))
      .output(postedOutput)
      .mutation(async ({ ctx, input }) => {
        const written = await ctx.hub.messages.postEvent(
          ctx.caller,
          input,
          pick(input, ["type", "conversation_id", "body", "to_instance", "reply_to", "attachments"]),
          input.idempotency_key ?? null,
        );
        return { replayed: written.replayed, message: written.message };
      }),
  }),
  // Issue 16: v1.12 polls and reactions (routers/polls.ts).
  polls: pollsRouter,
  reactions: reactionsRouter,
  agents: router({
    mine: humanProcedure
      .output(z.array(z.object({ id: z.string(), name: z.string(), description: z.string() })))
      .query(({ ctx }) => ctx.hub.pairing.ownAgents(ctx.caller)),
    /** 004 §2: the owner mints a 10-minute, single-use pairing code for one of its agents (B-014). */
    mintPairingCode: humanProcedure
      .meta({
        rest: {
          method: "POST",
          path: "/api/agents/{agent_id}/pairing-codes",
          status: 201,
          summary: "Mint a pairing code for your agent (agent protocol §2)",
        },
      })
      .input(z.strictObject({ agent_id: memberIdSchema }))
      .output(pairingCodeSchema)
      .mutation(({ ctx, input }) => ctx.hub.pairing.mintPairingCode(ctx.caller, input.agent_id)),
  }),
  links: router({
    /** 004 §2 reverse linking: what the owner approves (the request's label; the caller's agents). */
    get: humanProcedure
      .meta({
        rest: {
          method: "GET",
          path: "/api/links/{code}",
          summary: "A link request the CLI opened (agent protocol §2)",
        },
      })
      .input(z.strictObject({ code: linkCodeSchema }))
      .output(linkViewSchema)
      .query(({ ctx, input }) => ctx.hub.pairing.viewLink(ctx.caller, input.code)),
    approve: humanProcedure
      .meta({
        rest: {
          method: "POST",
          path: "/api/links/{code}/approve",
          summary: "Approve a link request for one of your agents (agent protocol §2)",
        },
      })
      .input(z.strictObject({ code: linkCodeSchema, agent_id: memberIdSchema }))
      .output(z.object({ approved: z.literal(true), agent_id: z.string() }))
      .mutation(({ ctx, input }) => ctx.hub.pairing.approveLink(ctx.caller, input.code, input.agent_id)),
  }),
});
export type AppRouter = typeof appRouter;

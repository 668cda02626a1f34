import {
  attachmentLinkFailed,
  type Attachment,
  bodyOrFiles,
  type Card,
  decideWake,
  HubError,
  holdsListenTicket,
  memberKindOf,
  type AgentMessage,
  type Message,
  type ProjectRef,
  type PingRate,
  pingsOf,
  type postEventInput,
  type postMessageInput,
  replyPolicyOf,
  resolveMentions,
} from "@maity/domain";
import type { z } from "zod";
import { randomUUID } from "node:crypto";
import type { Db, SqlExecutor, SqlRunner } from "@maity/db";
import { refuseClosed, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { type AgentMessageRow, buildAgentMessage, renderForAgent, toUpdatesEvent } from "./agentView.ts";
import { APPEND_LOCK_KEY } from "../delivery/append.ts";
import { linkAttachments } from "../files/link.ts";
import { withAgentMedia, withMedia } from "./media.ts";
import { rawOf } from "../raw.ts";
import { memberInfoOf, WRITE_FACTS_SQL, WRITE_SQL, type WriteFacts } from "./writeSql.ts";
import { IDEMPOTENCY_TTL_MS, type Idempotency, idempotencyOf } from "./idempotency.ts";
import type { LiveBus, LogEvent } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import type { KeyRow } from "../access/visibility.ts";
import { logMessageSelect, type MessageRow, readerOf, renderMessage } from "./render.ts";

// The send path: posting a chat message (§9.1, §9.2, §8.4). POST …/messages, POST …/events with type
// chat and the agent API's send all go through the same write.

/** One chat message as the write takes it, from either surface. */
export interface WriteInput {
  body: string;
  to_instance?: string | null | undefined;
  /** Agent API: the sender's metadata (reserved types refused by the route). */
  metadata?: Record<string, unknown> | null | undefined;
  replyToSeq?: number | null | undefined;
  /**
   * contact_agent (B-075, B-079): the agent this message must wake. When the room's agent rounds are
   * spent its verdict is `round_cap`, and the write is refused under the append lock: nothing sent.
   */
  wakes?: string | undefined;
  /** 004 v1.11, v1.12: the card, validated by the caller; stored as written. */
  card?: Card | null | undefined;
  /** The files' §8.7 metadata, in render order (linked by `within`). */
  attachments?: Attachment[] | null | undefined;
  /**
   * More writes of the same message in its transaction, after the event is inserted —
   * linking its files, creating its poll. A throw undoes the whole message (nothing half-written).
   */
  within?: ((tx: SqlExecutor, seq: number, sentAt: Date) => Promise<void>) | undefined;
}

/** A written (or replayed) message, in both surfaces' shapes. */
export interface Written {
  message: Message;
  agentMessage: AgentMessage;
  replayed: boolean;
}

export function messageWrites(
  db: Db,
  sql: SqlRunner,
  bus: LiveBus,
  hooks: { webhooksQueued?: () => void },
  pingRate: PingRate,
) {
  // The write's own reads on the driver itself (Prisma's per-query work is the send's cost); the rest stays on Prisma.
  const raw = rawOf(sql);

  /**
   * The one write of a chat message: POST …/messages and POST …/events with type chat (M-158), and
   * the agent API's send. A fixed number of statements whatever the number of participants: the
   * append lock, one read of everything the decision needs (under the lock, so the participants,
   * the previous round and the log's head are those the message is appended after), one statement
   * writing the event, its audience, verdicts, webhook deliveries, the conversation's head, the
   * writer's marker and the idempotency key; then the commit. The answer and the bus's payloads are
   * rendered from what the write has, never read back.
   */
  async function write(
    caller: Caller,
    row: KeyRow,
    data: WriteInput,
    idempotency: Idempotency | null = null,
  ): Promise<Written> {
    refuseObserver(row);
    refuseClosed(row);
    // B-338: a listen ticket is a credential; a message carrying one is refused, never posted.
    if (holdsListenTicket(data.body))
      throw HubError.invalid(
        { [caller.kind === "agent" ? "content" : "body"]: "holds_a_listen_ticket" },
        "the message holds a listen ticket, a credential: nothing was sent; never post it in a room",
      );
    if (row.kind === "group" && data.to_instance)
      throw HubError.invalid(
        { to_instance: "direct_only" },
        "to_instance names an instance in a direct conversation only",
      );
    const direct = row.kind === "direct";
    const toInstance = direct && caller.kind === "human" ? (data.to_instance ?? null) : null;
    // On the driver itself, as the hand-written limit does (bench:send): Prisma adds ~0.25 ms a statement.
    const result = await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`);
      const [facts] = await tx.query<WriteFacts>(WRITE_FACTS_SQL, [
        row.key,
        data.replyToSeq ?? null,
        caller.id,
        idempotency?.key ?? null,
        new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString(),
        row.projectId,
        toInstance,
        row.agentId ?? "",
      ]);
      if (!facts) throw new Error("the write's facts query returned nothing");
      if (facts.replay) {
        // A repeat of the same request by the same caller answers the first message and writes nothing.
        if (facts.replay.hash !== idempotency?.hash)
          throw new HubError(
            "conflict",
            "this Idempotency-Key was used with another request",
            { fields: { idempotency_key: "reused_with_other_body" } },
            { agentCode: "IDEMPOTENCY_KEY_REUSED" },
          );
        return { replayed: Number(facts.replay.response.seq) };
      }
      const participants = facts.participants;
      // §9.1: a @handle in a direct conversation is plain text; §9.2: group mentions resolve to current participants.
      const resolved =
        row.kind === "group"
          ? resolveMentions(
              data.body,
              participants.map((p) => ({
                member_id: p.memberId,
                handle: (p.kind === "agent" ? p.agentHandle : p.humanHandle) ?? p.memberId,
                names:
                  p.kind === "agent" ? [`${p.ownerHandle}/${p.agentHandle}`] : p.displayName ? [p.displayName] : [],
              })),
            )
          : [];
      const pings = pingsOf(caller.id, resolved);
      if (pings > 0) await checkPingRate(tx, caller.id, pings);
      // §9.1: to_instance names one of the agent's instances (a replaced one still counts: it is kept as written).
      if (toInstance && !facts.instance_ok)
        throw HubError.invalid({ to_instance: "not_an_instance" }, "to_instance names no instance of this agent");
      // The message replied to: one of this conversation's messages (B-125, B-126).
      const replyTo = facts.reply_to;
      if (data.replyToSeq != null && !replyTo)
        throw HubError.invalid(
          { reply_to: "not_in_conversation" },
          "the message replied to is not in this conversation",
          { agentCode: "INVALID_REPLY_TARGET" },
        );
      // B-068: the consecutive agent messages right before this one.
      const agentRoundsBefore = facts.previous_round ?? 0;
      const policy = replyPolicyOf(row.policy.replyPolicy);
      const wake = decideWake({
        conversationKind: row.kind,
        authorId: caller.id,
        authorKind: caller.kind,
        participants: participants.map((p) => ({
          member_id: p.memberId,
          kind: p.kind,
          ...(p.kind === "agent"
            ? { name: `${p.ownerHandle}/${p.agentHandle}`, description: p.description ?? "" }
            : {}),
          // B-302: a visitor placed with wake "sponsor" (its sponsor is its owner, DESIGN §4c).
          ...(p.wake === "sponsor" && p.ownerId ? { wokenOnlyBy: p.ownerId } : {}),
        })),
        mentions: resolved,
        toInstance,
        body: data.body,
        policy: { policy, designatedAgentId: row.policy.designatedAgentId, maxAgentRounds: row.policy.maxAgentRounds },
        replyTo: replyTo ? { id: replyTo.fromId, kind: memberKindOf(replyTo.fromId) ?? "human" } : null,
        agentRoundsBefore,
      });
      const woken = data.wakes === undefined ? null : wake.agents.find((v) => v.agentId === data.wakes);
      // B-302: contact_agent cannot wake a visitor that only its sponsor wakes: said, nothing written.
      if (woken && !woken.shouldRespond && woken.reason === "not_sponsor")
        throw HubError.forbidden(
          "not_sponsor",
          "this agent is a visitor woken only by the person who brought it: ask that person, or write in the room",
        );
      if (woken && !woken.shouldRespond && woken.reason === "round_cap")
        throw new HubError(
          "conflict",
          `the room's ${row.policy.maxAgentRounds} agent rounds are spent; a human message opens new ones`,
          { reason: "round_cap_reached", maxAgentRounds: row.policy.maxAgentRounds },
          { agentCode: "ROUND_CAP_REACHED" },
        );
      // B-063: the agents a human named ride in metadata.addressedAgents.
      const metadata =
        data.metadata || wake.addressedAgents.length
          ? {
              ...(data.metadata ?? {}),
              ...(wake.addressedAgents.length ? { addressedAgents: wake.addressedAgents } : {}),
            }
          : null;
      const toId = direct
        ? (participants.find((p) => p.memberId !== caller.id)?.memberId ?? row.agentId ?? "")
        : row.id;
      const mentions = resolved.map(({ instance, ...m }) => (instance ? { ...m, instance_id: instance } : m));
      // Webhook v2: one delivery per agent participant with a webhook, queued with the message and
      // sent after it commits, so a slow receiver never holds the writer (B-163).
      // B-302/B-303: a visitor woken only by its sponsor is sent only its sponsor's messages.
      const hooked = participants
        .filter((p) => p.hooked && p.memberId !== caller.id && (p.wake !== "sponsor" || p.ownerId === caller.id))
        .map((p) => p.memberId);
      const sentAt = new Date();
      const fromInstance = caller.kind === "agent" ? caller.instanceId : null;
      const agentRound = caller.kind === "agent" ? agentRoundsBefore + 1 : 0;
      const [written] = await tx.query<{ seq: number }>(WRITE_SQL, [
        row.projectId,
        row.key,
        caller.id,
        fromInstance,
        toId,
        toInstance,
        data.body,
        JSON.stringify(mentions),
        metadata ? JSON.stringify(metadata) : null,
        replyTo?.seq ?? null,
        pings,
        agentRound,
        sentAt.toISOString(),
        participants.map((p) => p.memberId),
        JSON.stringify(
          wake.agents.map((v) => ({
            agent_id: v.agentId,
            instance_id: v.instanceId,
            should_respond: v.shouldRespond,
            reason: v.reason,
          })),
        ),
        hooked.map(() => `whd_${randomUUID()}`),
        hooked,
        idempotency?.key ?? null,
        idempotency?.hash ?? null,
        data.card ? JSON.stringify(data.card) : null,
        data.attachments?.length ? JSON.stringify(data.attachments) : null,
      ]);
      if (!written) throw new Error("the write returned no seq");
      const seq = Number(written.seq);
      if (data.within) await data.within(tx, seq, sentAt);
      const event: MessageRow & AgentMessageRow = {
        seq,
        kind: "message",
        fromId: caller.id,
        toId,
        fromInstanceId: fromInstance,
        toInstanceId: toInstance,
        body: data.body,
        mentions,
        metadata,
        sentAt,
        deliveredAt: null,
        redacted: false,
        payload: null,
        replyToSeq: replyTo?.seq ?? null,
        card: data.card ?? null,
        attachments: data.attachments?.length ? data.attachments : null,
        redaction: null,
        conversation: {
          id: row.key,
          publicId: row.id,
          kind: row.kind,
          title: row.title,
          createdById: row.createdById,
          replyPolicy: row.policy.replyPolicy,
          designatedAgentId: row.policy.designatedAgentId,
          project: {
            id: row.projectId,
            name: row.projectName,
            bayId: facts.project_bay_id,
            briefVersion: Number(facts.project_version),
          },
        },
      };
      const sender = participants.find((p) => p.memberId === caller.id);
      const agentMessage = buildAgentMessage(event, {
        sender: sender ? memberInfoOf(sender) : undefined,
        present: sender !== undefined,
        reply: replyTo,
      });
      const logEvent: LogEvent = {
        type: "event",
        seq,
        prev: facts.head,
        kind: "message",
        sentAt: sentAt.toISOString(),
        conversationId: row.id,
        project: { owner: row.projectOwner, slug: row.projectSlug },
        audience: participants.map((p) => p.memberId),
        maity: renderMessage(event, { id: caller.id, admin: false }),
        agent: {
          event: toUpdatesEvent({ message: agentMessage, row: event }),
          respond: wake.agents.filter((v) => v.shouldRespond).map((v) => v.agentId),
        },
      };
      return { logEvent, agentMessage, hooked: hooked.length > 0 };
    });
    if ("replayed" in result) return replayOf(caller, row, result.replayed as number);
    bus.publish(result.logEvent);
    if (result.hooked) hooks.webhooksQueued?.();
    // A fresh message is read alike by everyone (no redaction reason yet): no reader lookup.
    return { message: result.logEvent.maity as Message, agentMessage: result.agentMessage, replayed: false };
  }

  /** The first answer of a repeated request, from the log (the message may have changed since: a redaction). */
  async function replayOf(caller: Caller, row: KeyRow, seq: number): Promise<Written> {
    const found = await db.event.findUniqueOrThrow({ where: { seq }, select: logMessageSelect });
    const [rendered] = await renderForAgent(db, caller.id, [found]);
    // As it reads now, like any read of it: a poll's tally and the reactions it has gathered since.
    const [message] = await withMedia(db, caller.id, [renderMessage(found, await readerOf(db, caller, row.projectId))]);
    const [agentMessage] = await withAgentMedia(db, caller.id, [(rendered as { message: AgentMessage }).message]);
    return { message: message as Message, agentMessage: agentMessage as AgentMessage, replayed: true };
  }

  /** §1.7: pings a writer may spend per window, counted from the log. */
  async function checkPingRate(tx: SqlExecutor, writerId: string, pings: number): Promise<void> {
    const since = new Date(Date.now() - pingRate.windowSeconds * 1000);
    const [row] = await tx.query<{ spent: number }>(
      "SELECT coalesce(sum(pings), 0)::int AS spent FROM events WHERE from_id = $1 AND kind = 'message' AND sent_at > $2::timestamp",
      [writerId, since.toISOString()],
    );
    const spent = Number(row?.spent ?? 0);
    if (spent + pings > pingRate.pings)
      throw new HubError("rate_limited", `at most ${pingRate.pings} pings per ${pingRate.windowSeconds} s`, {
        limit: "pings",
        pings: pingRate.pings,
        window_seconds: pingRate.windowSeconds,
      });
  }

  /**
   * The Maity send (POST …/messages, POST …/events type chat): the body may be empty only when files
   * are attached (M-030); the files link all or nothing, the conflict naming no id (B-201, B-202).
   */
  async function maityWrite(
    caller: Caller,
    row: KeyRow,
    data: z.output<typeof postMessageInput>,
    idempotencyKey: string | null,
  ): Promise<Written> {
    if (!bodyOrFiles(data)) throw HubError.invalid({ body: "required" }, "body: required without attachments");
    const ids = data.attachments ?? [];
    if (new Set(ids).size !== ids.length) throw attachmentLinkFailed();
    const write_ = { body: data.body, to_instance: data.to_instance, replyToSeq: data.reply_to ?? null };
    const idempotency = idempotencyOf(idempotencyKey, ["maity", row.key, ids.length ? { ...write_, ids } : write_]);
    const files = await linkAttachments(db, caller, row, ids, idempotency !== null);
    return write(caller, row, { ...write_, ...files }, idempotency);
  }

  return {
    write,

    /** POST …/messages; with an Idempotency-Key a repeat answers the first message (replayed, 200). */
    async post(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      data: z.output<typeof postMessageInput>,
      idempotencyKey: string | null = null,
    ): Promise<Written> {
      const row = await resolveConversation(raw, caller, ref, conversationId, { lean: true });
      return maityWrite(caller, row, data, idempotencyKey);
    },

    /** POST …/events with type chat: the same write as POST …/messages (§8.4, M-158). */
    async postEvent(
      caller: Caller,
      ref: ProjectRef,
      data: z.output<typeof postEventInput>,
      idempotencyKey: string | null = null,
    ): Promise<Written> {
      const row = await resolveConversation(raw, caller, ref, data.conversation_id, { lean: true });
      return maityWrite(caller, row, data, idempotencyKey);
    },
  };
}

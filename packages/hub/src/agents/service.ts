import {
  type AgentMe,
  type contactAgentInput,
  type AgentMessage,
  type AgentMessagePage,
  type AgentRoom,
  type agentPollQuery,
  type agentSendInput,
  type ContextEnvelope,
  type Features,
  featuresOf,
  joinInstructions,
  roomInstructions,
  compareListKeys,
  conversationRole,
  DESCRIPTION_MAX,
  HubError,
  historyFloorOf,
  isVisiting,
  oneLine,
  PROTOCOL_VERSION,
  decodeHistoryCursor,
  encodeHistoryCursor,
  seqOfMessageId,
  sendableCard,
  sendAttachmentIds,
  resolveMentions,
  projectFullName,
  replyPolicyOf,
} from "@maity/domain";
import type { Db } from "@maity/db";
import { createHash } from "node:crypto";
import type { z } from "zod";
import { refuseClosed } from "../access/resolve.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { AgentCaller } from "../access/caller.ts";
import { idempotencyOf } from "../messages/idempotency.ts";
import { linkAttachments } from "../files/link.ts";
import { publishTyping } from "../delivery/typing.ts";
import { withAgentMedia } from "../messages/media.ts";
import {
  agentMessageSelect,
  membersById,
  renderForAgent,
  type RoomEnvelope,
  visitingOf,
} from "../messages/agentView.ts";
import type { MessagesService } from "../messages/service.ts";
import type { HandedStore } from "../knowledge/handed.ts";
import type { ContextService } from "../knowledge/context.ts";

const NO_FEATURES: Features = new Set();
import { type KeyRow, listKeyOf, type ParticipantRow, readKeys, readParticipants } from "../access/visibility.ts";
import { agentDirectory } from "./directory.ts";
import { relayVerdicts } from "../sessions/listen.ts";

// The agent protocol's reads and writes (004 §3, §5, §7) over the same model and write as the
// Maity routes (DESIGN §1: one model, two surfaces). Everything here renders BayChat's shapes from
// the hub's rows; the rules it applies live in domain (routing verdicts are read, never re-derived).

/** The envelope's `instructionsSha256`: the hex sha256 of the instructions' UTF-8 bytes. */
export const instructionsSha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** A conversation key is a cuid; anything else is unknown without a query. */
const plausibleKey = (key: string): boolean => /^[a-z0-9]{8,40}$/i.test(key);

export function agentService(
  db: Db,
  bus: LiveBus,
  messages: MessagesService,
  handed: HandedStore,
  memory: Pick<ContextService, "takeNotice">,
) {
  /** One of the agent's rooms by its global id, as the Maity read model sees it; null otherwise. */
  async function room(agent: AgentCaller, key: string, lean = false): Promise<KeyRow | null> {
    if (!plausibleKey(key)) return null;
    const [row] = await readKeys(db, agent, { conversationKey: key, observed: false, lean });
    return row ?? null;
  }

  /** The roster of a room (B-039): name, kind, role, and for agents the description and visiting. */
  async function roster(row: KeyRow, participants: ParticipantRow[]) {
    const [project, agents] = await Promise.all([
      db.project.findUniqueOrThrow({ where: { id: row.projectId }, select: { bayId: true } }),
      db.agent.findMany({
        where: { id: { in: participants.filter((p) => p.kind === "agent").map((p) => p.memberId) } },
        select: { id: true, description: true },
      }),
    ]);
    const members = await membersById(
      db,
      participants.map((p) => p.memberId),
    );
    const policy = replyPolicyOf(row.policy.replyPolicy);
    return participants.map((p) => {
      const description = agents.find((a) => a.id === p.memberId)?.description;
      const info = members.get(p.memberId);
      return {
        id: p.memberId,
        name: info?.name ?? p.memberId,
        kind: p.kind === "agent" ? ("agent" as const) : ("user" as const),
        role:
          conversationRole({
            memberId: p.memberId,
            participant: true,
            createdById: row.createdById,
            group: row.kind === "group",
            policy,
            designatedAgentId: row.policy.designatedAgentId,
          }) ?? "member",
        ...(description !== undefined ? { description: oneLine(description, DESCRIPTION_MAX) } : {}),
        visiting: visitingOf(info, project.bayId),
      };
    });
  }

  /** §3 the context envelope, built fresh (B-041). */
  async function envelope(agent: AgentCaller, row: KeyRow): Promise<ContextEnvelope> {
    return (await envelopes(row)).envelope(agent);
  }

  /**
   * The envelope of a room for any of its agents: the roster read once, and what every reader's
   * envelope shares (the roster, the policy, the instructions' roster lines) built once — webhook
   * deliveries batch it.
   */
  async function envelopes(row: KeyRow): Promise<RoomEnvelope> {
    const participants = (await readParticipants(db, [row.key])).get(row.key) ?? [];
    const entries = await roster(row, participants);
    const group = row.kind === "group";
    const policy = replyPolicyOf(row.policy.replyPolicy);
    const designated = group ? row.policy.designatedAgentId : null;
    const shared = {
      conversation: { id: row.key, type: group ? ("GROUP" as const) : ("DM" as const), title: row.title },
      project: { id: row.projectId, name: row.projectName, version: row.projectVersion },
      participants: entries,
      // B-046: a direct conversation has no policy machinery.
      policy: group
        ? { rule: policy, effectiveRule: policy, policyApplies: true, maxAgentRounds: row.policy.maxAgentRounds }
        : { rule: null, effectiveRule: "EVERY_USER_MESSAGE" as const, policyApplies: false, maxAgentRounds: null },
    };
    const forReader = roomInstructions({
      conversation: { type: group ? "GROUP" : "DM", title: row.title },
      roster: entries.map((r) => ({
        id: r.id,
        name: r.name,
        kind: r.kind === "agent" ? "agent" : "human",
        description: r.description ?? "",
        visiting: r.visiting,
      })),
      policy,
      designatedAgentId: designated,
      maxAgentRounds: row.policy.maxAgentRounds,
      customRules: group ? row.policy.customRules : null,
    });
    const byId = new Map<string, (typeof entries)[number]>();
    for (const r of entries) if (!byId.has(r.id)) byId.set(r.id, r);
    const you = (agent: AgentCaller): ContextEnvelope["you"] => ({
      id: agent.id,
      name: byId.get(agent.id)?.name ?? agent.handle,
      isOrchestrator: group && policy === "ORCHESTRATOR" && designated === agent.id,
    });
    const instructions = (agent: AgentCaller) => forReader({ id: agent.id, name: you(agent).name });
    return {
      shared,
      you,
      instructions,
      envelope: (agent) => {
        const text = joinInstructions(instructions(agent));
        return { ...shared, you: you(agent), instructions: text, instructionsSha256: instructionsSha256(text) };
      },
    };
  }

  async function loadRendered(readerId: string, where: object, orderBy: "asc" | "desc", take: number) {
    const rows = await db.event.findMany({
      where: { kind: "message", ...where },
      orderBy: { seq: orderBy },
      take,
      select: agentMessageSelect,
    });
    return renderForAgent(db, readerId, rows);
  }

  /** Where the agent's readable history of a room starts (domain historyFloorOf). */
  async function historyFloor(agent: AgentCaller, row: KeyRow): Promise<number> {
    const [owner, project] = await Promise.all([
      db.human.findUnique({ where: { id: agent.ownerId }, select: { bayId: true } }),
      db.project.findUnique({ where: { id: row.projectId }, select: { bayId: true } }),
    ]);
    const visiting = owner !== null && project !== null && isVisiting(owner.bayId, project.bayId);
    if (!visiting) return historyFloorOf(false, row.windowSeq);
    // B-301: the placement's floor (0 when its sponsor shared the earlier history), else its window.
    const placed = await db.participation.findFirst({
      where: { conversationId: row.key, memberId: agent.id, leftAt: null },
      select: { historyFloor: true },
    });
    return historyFloorOf(true, placed?.historyFloor ?? row.windowSeq);
  }

  /** The envelope with the brief and notes delta its reader was not handed yet (knowledge/handed.ts). */
  async function withKnowledge(
    agent: AgentCaller,
    row: KeyRow,
    context: ContextEnvelope,
    features: Features,
  ): Promise<ContextEnvelope> {
    if (features.size === 0) return context;
    const attached = await handed.context(agent, row.key, features);
    // B-285: the 90 % notice rides a context read that asked for it, once (takeNotice spends it).
    const notice = features.has("notice") ? await memory.takeNotice(agent.id) : null;
    return { ...context, ...attached, ...(notice ? { notice } : {}) };
  }

  const service = {
    room,
    envelope,
    envelopes,
    historyFloor,

    /** GET /me (B-012): who the token is, and the protocol version (B-029). */
    async me(agent: AgentCaller): Promise<AgentMe> {
      const row = await db.agent.findUniqueOrThrow({
        where: { id: agent.id },
        select: { handle: true, description: true, owner: { select: { handle: true } } },
      });
      return {
        id: agent.id,
        name: `${row.owner.handle}/${row.handle}`,
        description: row.description,
        instanceId: agent.instanceId,
        protocolVersion: PROTOCOL_VERSION,
      };
    },

    /**
     * GET /conversations: the agent's DM and GROUP rooms in every project it is a member of. Ids are
     * the hub's global conversation keys: a direct conversation's Maity id (the agent's member id)
     * repeats in every project the agent is in.
     */
    async rooms(agent: AgentCaller): Promise<AgentRoom[]> {
      const rows = await readKeys(db, agent, { projectId: null, observed: false });
      return rows
        .sort((a, b) => compareListKeys(listKeyOf(a), listKeyOf(b)))
        .map((r) => ({
          id: r.key,
          type: r.kind === "direct" ? ("DM" as const) : ("GROUP" as const),
          title: r.title,
          maity: { project: projectFullName(r.projectOwner, r.projectSlug), id: r.id },
          project: { id: r.projectId, name: r.projectName, version: r.projectVersion },
          closed: r.closedAt !== null,
          lastMessageAt: r.last?.sentAt.toISOString() ?? null,
        }));
    },

    /**
     * GET /conversations/:id/context; null for a room the agent is not in, known or not (B-038). With
     * `features` (brief, notes) the envelope hands what this agent's context reads have not (B-257, B-269).
     */
    async context(agent: AgentCaller, key: string, features: Features = NO_FEATURES): Promise<ContextEnvelope | null> {
      const row = await room(agent, key);
      return row ? withKnowledge(agent, row, await envelope(agent, row), features) : null;
    },

    /**
     * GET /conversations/:id/messages (§5). `since`: the messages of the agent's window newer than
     * it, ascending (B-095) — a forward read, so it moves the agent's read marker and sets a direct
     * message's delivered_at (§9.1). Without: older history by `cursor`, newest first (B-096), back
     * to the chat's first message (§9.2 history; a visitor's placement, B-301), marking nothing read.
     * Null when not in the room (B-100).
     */
    async poll(agent: AgentCaller, key: string, q: z.output<typeof agentPollQuery>): Promise<AgentMessagePage | null> {
      if (q.since !== undefined && q.cursor !== undefined)
        throw HubError.invalid({ cursor: "not_with_since" }, "since and cursor together are invalid");
      const before = q.cursor === undefined ? null : decodeHistoryCursor(q.cursor);
      if (q.cursor !== undefined && before === null)
        throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one this route gave out");
      const row = await room(agent, key);
      if (!row) return null;
      let rendered: Awaited<ReturnType<typeof renderForAgent>>;
      let nextCursor: string | null = null;
      if (q.since !== undefined) {
        const since = new Date(q.since);
        // B-303: a visitor woken only by its sponsor reads forward only what woke it — its sponsor's messages.
        const placed = await db.participation.findFirst({
          where: { conversationId: row.key, memberId: agent.id, leftAt: null },
          select: { wake: true },
        });
        const where = {
          conversationId: row.key,
          seq: { gt: row.windowSeq },
          ...(placed?.wake === "sponsor" ? { fromId: agent.ownerId } : {}),
        };
        rendered = await loadRendered(agent.id, { ...where, sentAt: { gt: since } }, "asc", q.limit);
        const last = rendered.length === q.limit ? rendered.at(-1) : undefined;
        // A full page ends on a whole millisecond, so `since` = its last createdAt loses nothing.
        if (last)
          rendered.push(
            ...(await loadRendered(
              agent.id,
              { ...where, seq: { gt: last.row.seq }, sentAt: last.row.sentAt },
              "asc",
              1000,
            )),
          );
        const highest = rendered.at(-1)?.row.seq ?? 0;
        await messages.markRead(agent, row, highest);
        await messages.markDeliveredTo(
          agent.id,
          rendered.map((r) => r.row.seq),
        );
      } else {
        const floor = await historyFloor(agent, row);
        rendered = await loadRendered(
          agent.id,
          { conversationId: row.key, seq: { gt: floor, ...(before !== null ? { lt: before } : {}) } },
          "desc",
          q.limit + 1,
        );
        if (rendered.length > q.limit) {
          rendered = rendered.slice(0, q.limit);
          nextCursor = encodeHistoryCursor((rendered.at(-1) as (typeof rendered)[number]).row.seq);
        }
        // Returned to the agent is delivered (§9.1), whichever way it was read; history marks nothing read.
        await messages.markDeliveredTo(
          agent.id,
          rendered.map((r) => r.row.seq),
        );
      }
      // Each poll's tally for this reader and each message's reactions, one batch for the page.
      const page = await withAgentMedia(
        db,
        agent.id,
        rendered.map((r) => r.message),
      );
      const context = await withKnowledge(agent, row, await envelope(agent, row), featuresOf(q.features));
      return { messages: await relayVerdicts(db, agent, page), nextCursor, context };
    },

    /**
     * POST /conversations/:id/messages (§7): the same write as Maity's (mentions, routing verdicts,
     * audience, marker), with the agent's metadata and reply target. Not in the room → not_found (B-116).
     */
    async send(
      agent: AgentCaller,
      key: string,
      data: z.output<typeof agentSendInput>,
      idempotencyKey: string | null = null,
      wakes?: string,
    ): Promise<{ message: AgentMessage; replayed: boolean }> {
      // The header or clientMessageId names a send a client may retry; the operation's schema refused
      // them differing, a reserved metadata.type and the hub's own metadata keys (B-063, B-118).
      const clientKey = idempotencyKey ?? data.clientMessageId ?? null;
      const replyToSeq = data.replyToMessageId == null ? null : seqOfMessageId(data.replyToMessageId);
      const row = await room(agent, key, true);
      if (!row) throw HubError.notFound("conversation not found");
      // An id that names no message of the log is outside this conversation too (B-126).
      if (data.replyToMessageId != null && replyToSeq === null)
        throw HubError.invalid(
          { reply_to: "not_in_conversation" },
          "the message replied to is not in this conversation",
          { agentCode: "INVALID_REPLY_TARGET" },
        );
      const fileIds = sendAttachmentIds(data);
      const card = data.card ? sendableCard(data.card) : null;
      // v1.11: a card message says its type in metadata.type, as a poll says card.poll (B-234).
      const metadata = card ? { ...(data.metadata ?? {}), type: card.type } : (data.metadata ?? null);
      const write = { body: data.content, metadata, replyToSeq, wakes, card };
      const idempotency = idempotencyOf(clientKey, ["agent", row.key, { ...write, fileIds }]);
      const files = await linkAttachments(db, agent, row, fileIds, idempotency !== null);
      const written = await messages.writeIn(agent, row, { ...write, ...files }, idempotency);
      return { message: written.agentMessage, replayed: written.replayed };
    },

    /**
     * contact_agent (B-075, B-079): a message in a room both agents are in, addressed to the other
     * one by an @mention (added in front unless the text already has it), so its verdict is
     * `mentioned` and it wakes. Spent rounds refuse it before anything is sent (messages' write).
     * A room the caller is not in, or an agent not in it (or itself), answers not_found alike.
     */
    async contact(agent: AgentCaller, input: z.output<typeof contactAgentInput>): Promise<AgentMessage> {
      const row = await room(agent, input.conversationId, true);
      const participants = row ? ((await readParticipants(db, [row.key])).get(row.key) ?? []) : [];
      const target =
        input.agentId !== agent.id
          ? participants.find((p) => p.kind === "agent" && p.memberId === input.agentId)
          : undefined;
      if (row?.kind !== "group" || !target) throw HubError.notFound("no such agent in this conversation");
      const info = (await membersById(db, [target.memberId])).get(target.memberId);
      const handle = info?.name.slice(info.name.lastIndexOf("/") + 1) ?? target.memberId;
      const named = resolveMentions(input.content, [
        { member_id: target.memberId, handle, names: info ? [info.name] : [] },
      ]);
      const content = named.length ? input.content : `@${info?.name ?? target.memberId} ${input.content}`;
      const data = { content, replyToMessageId: input.replyToMessageId };
      return (await service.send(agent, row.key, data, null, target.memberId)).message;
    },

    /** GET /agents, list_agents (B-356, B-308, B-305): agents/directory.ts. */
    directory: (agent: AgentCaller) => agentDirectory(db, agent),

    /** POST /conversations/:id/typing (§7): tells the room's people; not in the room → not_found. */
    async typing(agent: AgentCaller, key: string): Promise<void> {
      const row = await room(agent, key);
      if (!row) throw HubError.notFound("conversation not found");
      refuseClosed(row);
      await publishTyping(db, bus, row, agent.id);
    },
  };
  return service;
}
export type AgentService = ReturnType<typeof agentService>;

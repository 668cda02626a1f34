import {
  budgetHistory,
  type ContextNotice,
  joinInstructions,
  knowledgeBlock,
  knowledgeFor,
  shelfOf,
  type UpdatesEvent,
  type WebhookDelivery,
  HISTORY_TURNS_MAX,
  type HistoryTurn,
  historyFloorOf,
  isVisiting,
} from "@maity/domain";
import type { SqlExecutor } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { agentsInRoom } from "../access/agentsInRoom.ts";
import { type KeyRow, readKeys } from "../access/visibility.ts";
import { type AgentService, instructionsSha256 } from "../agents/service.ts";
import { readRoomKnowledge, type StoredKnowledge } from "../knowledge/state.ts";
import type { RoomEnvelope } from "../messages/agentView.ts";
import { type Signer, signAgentMessage } from "../files/render.ts";
import { forReader, readAgentMessageRows, renderAgentEvents, toUpdatesEvent } from "../messages/agentView.ts";
import { rawOf } from "../raw.ts";
import { type BodyHole, bodyBytes, bodyTemplate, instructionsJson, type Template } from "./webhookJson.ts";

// The bodies of a batch of claimed webhook deliveries (004 §11, B-163…B-177), built together: what
// every delivery of one message shares — the message, its history, the room's roster — is read and
// rendered once for the batch; what is the receiving agent's own — whether it is still in the room
// (hidden = missing), its verdict, its history floor (B-301), its file count (B-168), `you` — per
// agent. The body's JSON is made once per message and history floor with holes for the agent's own
// fields (webhookJson.ts) — the instructions' roster lines encoded once per room — and each body is
// those bytes with the agent's fragments copied in: the same bytes as one delivery built alone.

/** A claimed delivery with what the claim read beside it (webhookQueue.ts). */
export interface Claim {
  id: string;
  agentId: string;
  eventSeq: number;
  attempts: number;
  /** The webhook now; null when it was removed since. */
  url: string | null;
  secret: string | null;
  handle: string;
  ownerId: string;
  ownerBayId: string;
  conversationKey: string;
  /** The agent has a later delivery row (pending, unless dropped): a round at once, following the agent. */
  more: boolean;
}

export type Prepared = { claim: Claim; url: string; secret: string; bytes: Buffer } | { claim: Claim; drop: string };

export interface BodyDeps {
  sql: SqlExecutor;
  agents: AgentService;
  sign?: Signer;
  count?: (agent: AgentCaller, row: KeyRow) => Promise<number>;
  /** B-285: the 90 % notices due for a round's agents, spent as their bodies are built. */
  notices?: (agentIds: readonly string[]) => Promise<Map<string, ContextNotice>>;
}

/**
 * The history turns before each (conversation, seq, floor), newest HISTORY_TURNS_MAX, and how many
 * messages of the readable history there are before it (B-175, B-177); the hub's quiet lines are no turn.
 */
const HISTORY_SQL = `
SELECT s.k, s.seq AS for_seq, s.floor, h.seq,
       (SELECT count(*)::int FROM events e WHERE e.conversation_id = s.k AND e.kind = 'message' AND e.from_id <> 'system'
          AND e.seq < s.seq AND e.seq > s.floor) AS total
FROM unnest($1::text[], $2::int[], $3::int[]) AS s(k, seq, floor)
LEFT JOIN LATERAL (
  SELECT e.seq FROM events e WHERE e.conversation_id = s.k AND e.kind = 'message' AND e.from_id <> 'system'
    AND e.seq < s.seq AND e.seq > s.floor
  ORDER BY e.seq DESC LIMIT ${HISTORY_TURNS_MAX}) h ON true`;

const callerOf = (c: Claim): AgentCaller => ({
  kind: "agent",
  id: c.agentId,
  handle: c.handle,
  ownerId: c.ownerId,
  instanceId: null,
});

/**
 * How long what one message's deliveries share is reused by the next batches of its fan-out: the
 * bodies of one message to many agents read the room and the history as they were when its first
 * batch was built (a retry, seconds later, reads them anew). Whether each agent is still in the
 * room is asked fresh for every batch.
 */
export const SHARED_TTL_MS = 1_000;

type Rendered = Awaited<ReturnType<typeof renderAgentEvents>>[number];
type Room = {
  row: KeyRow;
  envelope: RoomEnvelope;
  instructions: ReturnType<typeof instructionsJson>;
};
/** A room's knowledge as this round read it, and its blocks by (visiting, files) (B-169…B-174). */
type Knowledge = { stored: StoredKnowledge | null; blocks: Map<string, string> };
type Cached<T> = { at: number; value: T };

/** Builds the bodies of claimed deliveries; what a message's deliveries share lives SHARED_TTL_MS. */
export function bodyBuilder(deps: BodyDeps) {
  const { sql, agents } = deps;
  const raw = rawOf(sql);
  const messages = new Map<
    number,
    Cached<{
      rendered: Rendered;
      event: UpdatesEvent;
      /** The message's JSON as an agent told to respond reads it, and as one told not to (B-164). */
      asked: Buffer;
      told: Buffer;
    }>
  >();
  const histories = new Map<string, Cached<HistoryTurn[]>>();
  const rooms = new Map<string, Cached<Room>>();
  /** The bodies' templates by message and history floor (built from the three caches above). */
  const templates = new Map<string, Cached<Template<BodyHole>>>();
  const prune = (now: number) => {
    for (const map of [messages, histories, rooms, templates] as Map<unknown, Cached<unknown>>[])
      for (const [k, v] of map) if (now - v.at >= SHARED_TTL_MS) map.delete(k);
  };

  /** The room as one of the batch's agents reads it (readKeys) and its envelope. */
  async function roomOf(key: string, list: Claim[], now: number): Promise<Room | null> {
    const cached = rooms.get(key);
    if (cached) return cached.value;
    let row: KeyRow | undefined;
    for (const c of list) {
      [row] = await readKeys(raw, callerOf(c), { conversationKey: key, observed: false, lean: true });
      if (row) break;
    }
    if (!row) return null;
    const envelope = await agents.envelopes(row);
    const room = { row, envelope, instructions: instructionsJson() };
    rooms.set(key, { at: now, value: room });
    return room;
  }

  return async function prepare(claims: Claim[]): Promise<Prepared[]> {
    const now = Date.now();
    prune(now);
    const hooked = claims.filter((c) => c.url !== null && c.secret !== null);
    // Still in the room (hidden = missing): which of the batch's agents are, in one statement a room.
    const rows = new Map<string, KeyRow>();
    const roomByClaim = new Map<string, Room>();
    const byRoom = new Map<string, Claim[]>();
    for (const c of hooked) byRoom.set(c.conversationKey, [...(byRoom.get(c.conversationKey) ?? []), c]);
    for (const [key, list] of byRoom) {
      const room = await roomOf(key, list, now);
      if (!room) continue;
      const inRoom = await agentsInRoom(raw, room.row, [...new Set(list.map((c) => c.agentId))]);
      for (const c of list) {
        const own = inRoom.get(c.agentId);
        if (own) {
          rows.set(c.id, own);
          roomByClaim.set(c.id, room);
        }
      }
    }
    const live = hooked.filter((c) => rows.has(c.id));
    // The brief and the notes as they are now, every round (never cached: a message written after an
    // edit carries the edit), one statement for the round's rooms.
    const stored = await readRoomKnowledge(sql, [...new Set(live.map((c) => c.conversationKey))]);
    const knowledge = new Map<string, Knowledge>();
    const knowledgeOf = (key: string): Knowledge => {
      const known = knowledge.get(key);
      if (known) return known;
      const k = { stored: stored.get(key) ?? null, blocks: new Map<string, string>() };
      knowledge.set(key, k);
      return k;
    };
    // The messages and their histories not built in the last SHARED_TTL_MS: read and rendered together.
    const seqs = [...new Set(live.map((c) => c.eventSeq))].filter((s) => !messages.has(s));
    const events = await readAgentMessageRows(raw, seqs);
    const bayOf = new Map(events.map((e) => [e.seq, e.conversation?.project.bayId ?? ""]));
    for (const [seq, m] of messages) bayOf.set(seq, m.value.rendered.row.conversation?.project.bayId ?? "");
    const floorOf = (c: Claim): number => {
      const kr = rows.get(c.id) as KeyRow;
      return historyFloorOf(isVisiting(c.ownerBayId, bayOf.get(c.eventSeq) ?? ""), kr.historyFloor ?? kr.windowSeq);
    };
    const wanted = new Map<string, { k: string; seq: number; floor: number }>();
    for (const c of live) {
      const floor = floorOf(c);
      const key = `${c.eventSeq} ${floor}`;
      if (!histories.has(key)) wanted.set(key, { k: c.conversationKey, seq: c.eventSeq, floor });
    }
    const found = new Map<string, { seqs: number[]; earlier: number }>();
    if (wanted.size) {
      const list = [...wanted.values()];
      const history = await sql.query<{ for_seq: number; floor: number; seq: number | null; total: number }>(
        HISTORY_SQL,
        [list.map((w) => w.k), list.map((w) => w.seq), list.map((w) => w.floor)],
      );
      for (const f of history) {
        const key = `${Number(f.for_seq)} ${Number(f.floor)}`;
        const h = found.get(key) ?? { seqs: [], earlier: Math.max(0, Number(f.total) - HISTORY_TURNS_MAX) };
        if (f.seq !== null) h.seqs.push(Number(f.seq));
        found.set(key, h);
      }
    }
    const loaded = new Set(events.map((e) => e.seq));
    const olderSeqs = [...new Set([...found.values()].flatMap((h) => h.seqs))].filter((s) => !loaded.has(s));
    const older = await readAgentMessageRows(raw, olderSeqs);
    const rendered = new Map((await renderAgentEvents(raw, [...events, ...older], seqs)).map((r) => [r.row.seq, r]));
    for (const seq of seqs) {
      const r = rendered.get(seq);
      // B-181, B-185: the files signed when the bodies are made.
      if (!r) continue;
      const event = toUpdatesEvent({
        message: deps.sign ? signAgentMessage(r.message, deps.sign) : r.message,
        row: r.row,
      });
      // The message as each reader gets it: its own verdict (B-164), one copy a verdict.
      const asked = Buffer.from(JSON.stringify({ ...event.message, shouldRespond: true }));
      const told = Buffer.from(JSON.stringify({ ...event.message, shouldRespond: false }));
      messages.set(seq, { at: now, value: { rendered: r, event, asked, told } });
    }
    for (const [key, h] of found) histories.set(key, { at: now, value: turnsOf(h, rendered) });

    // The notices due, one statement a round; each rides its agent's first body of the round.
    const notices = deps.notices ? await deps.notices([...new Set(live.map((c) => c.agentId))]) : new Map();
    const noticeClaim = new Map<string, string>();
    for (const c of live) if (notices.has(c.agentId) && !noticeClaim.has(c.agentId)) noticeClaim.set(c.agentId, c.id);
    return Promise.all(
      claims.map(async (c): Promise<Prepared> => {
        if (c.url === null || c.secret === null) return { claim: c, drop: "webhook removed" };
        const row = rows.get(c.id);
        const room = roomByClaim.get(c.id);
        const cached = messages.get(c.eventSeq);
        const key = `${c.eventSeq} ${row ? floorOf(c) : 0}`;
        const history = histories.get(key);
        if (!row || !room || !cached || !history) return { claim: c, drop: "no longer in the conversation" };
        const m = cached.value;
        let template = templates.get(key)?.value;
        if (!template) {
          template = bodyTemplate({
            event: m.event,
            sender: m.rendered.message.sender,
            replyTo: m.rendered.message.replyTo,
            envelope: room.envelope.shared,
            history: history.value,
          });
          // As old as the oldest of what it was made from.
          const at = Math.min(cached.at, history.at, rooms.get(c.conversationKey)?.at ?? now);
          templates.set(key, { at, value: template });
        }
        const caller = callerOf(c);
        // B-168: counted only when the project has a file at all (read with this round's knowledge).
        const anyFile = knowledgeOf(c.conversationKey).stored?.anyFile ?? false;
        const fileCount = anyFile && deps.count ? await deps.count(caller, row) : 0;
        const shouldRespond = forReader(m.rendered.message, m.rendered.respond, c.agentId).shouldRespond;
        const mine = readerKnowledge(room, knowledgeOf(c.conversationKey), c, fileCount);
        const base = room.envelope.instructions(caller);
        // The block is the instructions' last part (B-169): after the room's own tail.
        const pieces = mine.block ? { ...base, tail: `${base.tail}\n\n${mine.block}` } : base;
        const bytes = bodyBytes(template, {
          deliveryId: c.id,
          project: mine.project,
          message: shouldRespond ? m.asked : m.told,
          shouldRespond,
          you: room.envelope.you(caller),
          instructions: room.instructions(pieces),
          instructionsSha256: instructionsSha256(joinInstructions(pieces)),
        });
        const notice = noticeClaim.get(c.agentId) === c.id ? notices.get(c.agentId) : undefined;
        // The notice is the body's last member (JSON.stringify of the whole body with it, byte for byte).
        const body = notice
          ? Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from(`,"notice":${JSON.stringify(notice)}}`)])
          : bytes;
        return { claim: c, url: c.url, secret: c.secret, bytes: body };
      }),
    );
  };
}

/**
 * What of the room's knowledge one reader's body carries: the project's metadata (B-167) and the
 * block its instructions end with (B-169…B-174) — a visitor's without the brief and the project's
 * notes (B-248, B-274), the Files: line only when its list_files here lists something (B-174).
 */
function readerKnowledge(room: Room, knowledge: Knowledge, c: Claim, fileCount: number) {
  const stored = knowledge.stored;
  const visiting = stored ? isVisiting(c.ownerBayId, stored.bayId) : false;
  const k = stored ? knowledgeFor(stored, visiting) : null;
  const files = fileCount > 0;
  const memo = `${visiting} ${files}`;
  let block = knowledge.blocks.get(memo);
  if (block === undefined) {
    block = k
      ? knowledgeBlock({
          brief:
            k.project.brief === null
              ? null
              : {
                  name: k.project.name,
                  text: k.project.brief,
                  visitedBay: visiting && stored?.shared ? stored.bayHandle : undefined,
                },
          pinned: k.pinned,
          shelf: shelfOf(k),
          files,
        })
      : files
        ? knowledgeBlock({ brief: null, pinned: [], shelf: { titles: [], more: 0 }, files })
        : "";
    knowledge.blocks.set(memo, block);
  }
  const project: WebhookDelivery["project"] = {
    id: room.row.projectId,
    name: k?.project.name ?? room.row.projectName,
    version: k?.project.version ?? room.row.projectVersion,
    notes: {
      pinned: (k?.pinned ?? []).map((n) => ({ id: n.id, title: n.title, version: n.version })),
      shelfCount: k?.shelfCount ?? 0,
      fileCount,
    },
  };
  return { project, block };
}

/** B-175…B-177: the turns before a message, budgeted (the newest 20 read, and how many older exist). */
function turnsOf(h: { seqs: number[]; earlier: number }, rendered: Map<number, Rendered>): HistoryTurn[] {
  const turns = [...h.seqs]
    .sort((a, b) => a - b)
    .flatMap((s): HistoryTurn[] => {
      const m = rendered.get(s)?.message;
      if (!m) return [];
      return [
        {
          id: m.id,
          senderId: m.senderId,
          senderName: m.sender.name,
          senderType: m.senderType,
          content: m.content,
          createdAt: m.createdAt,
          replyTo: m.replyTo,
        },
      ];
    });
  return budgetHistory(turns, h.earlier);
}

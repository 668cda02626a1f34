import {
  budgetHistory,
  HISTORY_TURNS_MAX,
  type HistoryTurn,
  historyFloorOf,
  isVisiting,
  type WebhookDelivery,
} from "@maity/domain";
import type { Db, SqlExecutor } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { type KeyRow, readKeys } from "../access/visibility.ts";
import type { AgentService } from "../agents/service.ts";
import { type Signer, signAgentMessage } from "../files/render.ts";
import {
  type AgentMessageRow,
  agentMessageSelect,
  forReader,
  renderAgentEvents,
  toUpdatesEvent,
} from "../messages/agentView.ts";
import { rawOf } from "../raw.ts";

// The bodies of a batch of claimed webhook deliveries (004 §11, B-163…B-177), built together: what
// every delivery of one message shares — the message, its history, the room's roster — is read and
// rendered once for the batch; what is the receiving agent's own — whether it is still in the room
// (hidden = missing), its verdict, its history floor (B-301), its file count (B-168), `you` — per
// agent. The same body as one delivery built alone.

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
}

export type Prepared = { claim: Claim; url: string; secret: string; body: WebhookDelivery } | { claim: Claim; drop: string };

export interface BodyDeps {
  db: Db;
  sql: SqlExecutor;
  agents: AgentService;
  sign?: Signer;
  count?: (agent: AgentCaller, row: KeyRow) => Promise<number>;
}

/**
 * The history turns before each (conversation, seq, floor), newest HISTORY_TURNS_MAX, and how many
 * messages of the readable history there are before it (B-175, B-177).
 */
const HISTORY_SQL = `
SELECT s.k, s.seq AS for_seq, s.floor, h.seq,
       (SELECT count(*)::int FROM events e WHERE e.conversation_id = s.k AND e.kind = 'message'
          AND e.seq < s.seq AND e.seq > s.floor) AS total
FROM unnest($1::text[], $2::int[], $3::int[]) AS s(k, seq, floor)
LEFT JOIN LATERAL (
  SELECT e.seq FROM events e WHERE e.conversation_id = s.k AND e.kind = 'message' AND e.seq < s.seq AND e.seq > s.floor
  ORDER BY e.seq DESC LIMIT ${HISTORY_TURNS_MAX}) h ON true`;

/** Whether a project has any file a listing could count (B-168): none, and every count is 0. */
const ANY_FILE_SQL = `
SELECT EXISTS (SELECT 1 FROM attachments a WHERE a.deleted_at IS NULL AND (a.library_project_id = $1
  OR (a.event_seq IS NOT NULL AND a.conversation_id IN (SELECT c.id FROM conversations c WHERE c.project_id = $1)))) AS any`;

const callerOf = (c: Claim): AgentCaller => ({
  kind: "agent",
  id: c.agentId,
  handle: c.handle,
  ownerId: c.ownerId,
  instanceId: null,
});

export async function prepareBodies(deps: BodyDeps, claims: Claim[]): Promise<Prepared[]> {
  const { db, sql, agents } = deps;
  const raw = rawOf(sql);
  const hooked = claims.filter((c) => c.url !== null && c.secret !== null);
  // Still in the room, as every read of the agent's decides it (readKeys): one statement per agent.
  const rows = new Map<string, KeyRow | null>(
    await Promise.all(
      hooked.map(async (c): Promise<[string, KeyRow | null]> => {
        const [row] = await readKeys(raw, callerOf(c), {
          conversationKey: c.conversationKey,
          observed: false,
          lean: true,
        });
        return [c.id, row ?? null];
      }),
    ),
  );
  const live = hooked.filter((c) => rows.get(c.id));
  const seqs = [...new Set(live.map((c) => c.eventSeq))];
  const events = seqs.length
    ? await db.event.findMany({ where: { seq: { in: seqs } }, select: agentMessageSelect })
    : [];
  const eventBySeq = new Map(events.map((e) => [e.seq, e]));
  const floorOf = (c: Claim): number => {
    const bay = eventBySeq.get(c.eventSeq)?.conversation?.project.bayId ?? "";
    return historyFloorOf(isVisiting(c.ownerBayId, bay), (rows.get(c.id) as KeyRow).windowSeq);
  };
  // One history per (conversation, seq, floor): every agent but a visitor shares it.
  const wanted = new Map<string, { k: string; seq: number; floor: number }>();
  for (const c of live) {
    const floor = floorOf(c);
    wanted.set(`${c.eventSeq} ${floor}`, { k: c.conversationKey, seq: c.eventSeq, floor });
  }
  const histories = new Map<string, { seqs: number[]; earlier: number }>();
  if (wanted.size) {
    const list = [...wanted.values()];
    const found = await sql.query<{ k: string; for_seq: number; floor: number; seq: number | null; total: number }>(
      HISTORY_SQL,
      [list.map((w) => w.k), list.map((w) => w.seq), list.map((w) => w.floor)],
    );
    for (const f of found) {
      const key = `${Number(f.for_seq)} ${Number(f.floor)}`;
      const h = histories.get(key) ?? { seqs: [], earlier: Math.max(0, Number(f.total) - HISTORY_TURNS_MAX) };
      if (f.seq !== null) h.seqs.push(Number(f.seq));
      histories.set(key, h);
    }
  }
  const historySeqs = [...new Set([...histories.values()].flatMap((h) => h.seqs))].filter((s) => !eventBySeq.has(s));
  const older = historySeqs.length
    ? await db.event.findMany({ where: { seq: { in: historySeqs } }, select: agentMessageSelect })
    : [];
  const rendered = new Map(
    (await renderAgentEvents(db, [...events, ...older] as AgentMessageRow[])).map((r) => [r.row.seq, r]),
  );
  const turnsOf = (key: string): HistoryTurn[] => {
    const h = histories.get(key) ?? { seqs: [], earlier: 0 };
    const turns = [...h.seqs]
      .sort((a, b) => a - b)
      .flatMap((s) => {
        const r = rendered.get(s);
        if (!r) return [];
        const m = r.message;
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
  };
  const budgeted = new Map<string, HistoryTurn[]>();
  // The room's envelope and whether its project has files: once per conversation of the batch.
  const rooms = new Map<string, Promise<{ envelope: Awaited<ReturnType<AgentService["envelopes"]>>; files: boolean }>>();
  const roomOf = (c: Claim) => {
    let room = rooms.get(c.conversationKey);
    if (!room) {
      const row = rows.get(c.id) as KeyRow;
      room = (async () => {
        const envelope = await agents.envelopes(row);
        const files = deps.count
          ? ((await sql.query<{ any: boolean }>(ANY_FILE_SQL, [row.projectId]))[0]?.any ?? false)
          : false;
        return { envelope, files };
      })();
      rooms.set(c.conversationKey, room);
    }
    return room;
  };
  // The files of a message are signed when the body is made (B-181, B-185), once per message.
  const signed = new Map<number, ReturnType<typeof toUpdatesEvent>>();
  return Promise.all(
    claims.map(async (c): Promise<Prepared> => {
      if (c.url === null || c.secret === null) return { claim: c, drop: "webhook removed" };
      const row = rows.get(c.id);
      const r = rendered.get(c.eventSeq);
      if (!row || !r) return { claim: c, drop: "no longer in the conversation" };
      const caller = callerOf(c);
      const room = await roomOf(c);
      const context = room.envelope(caller);
      const fileCount = room.files && deps.count ? await deps.count(caller, row) : 0;
      let event_ = signed.get(c.eventSeq);
      if (!event_) {
        event_ = toUpdatesEvent({
          message: deps.sign ? signAgentMessage(r.message, deps.sign) : r.message,
          row: r.row,
        });
        signed.set(c.eventSeq, event_);
      }
      const message = forReader(r.message, r.respond, c.agentId);
      const key = `${c.eventSeq} ${floorOf(c)}`;
      let history = budgeted.get(key);
      if (!history) {
        history = turnsOf(key);
        budgeted.set(key, history);
      }
      const body: WebhookDelivery = {
        event: "message.created" as const,
        deliveryId: c.id,
        conversationId: event_.conversationId,
        conversation: event_.conversation,
        // B-167: metadata only; no notes exist yet. B-168: fileCount is what this agent's list_files here lists.
        project: { ...event_.project, notes: { pinned: [], shelfCount: 0, fileCount } },
        message: { ...event_.message, shouldRespond: message.shouldRespond },
        sender: message.sender,
        replyTo: message.replyTo,
        participants: context.participants,
        instructions: context.instructions,
        context,
        // B-164: the same signal as `→ you should respond`.
        you: { ...context.you, shouldRespond: message.shouldRespond },
        history,
      };
      return { claim: c, url: c.url, secret: c.secret, body };
    }),
  );
}

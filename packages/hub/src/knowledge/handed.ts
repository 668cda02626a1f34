import {
  type Features,
  type Held,
  handout,
  isVisiting,
  knowledgeFor,
  seqOfMessageId,
  type UpdatesEvent,
  withProjectRead,
} from "@maity/domain";
import type { SqlExecutor } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { readRooms, type StoredKnowledge } from "./state.ts";

// What each client of an agent was handed of a room's brief and notes (B-249…B-257, B-264…B-272),
// kept in knowledge_handed so it survives a restart and kill -9. A feed client (/updates and /ws:
// their cursors are one, B-144) confirms a handout by moving its cursor past the event that carried
// it; until then the handout is pending, and an event served again from an older cursor is handed
// what changed since the last confirmed state — its delta again, merged with anything newer (B-253,
// B-265). The record is written before the batch is answered: a client that never receives it
// re-polls from its cursor and is handed it again. The envelope (`context`) hands at most once
// (B-257, B-269); a get_project read (`project`) counts as holding that brief (B-272).

type Pending = { seq: number; held: Held };
type HandedRecord = { acked: Held; pending: Pending[] };

export const CONTEXT_CLIENT = "context";
export const PROJECT_CLIENT = "project";
/** One feed per agent instance: the /updates holder and the /ws socket of that instance share it. */
export const feedClient = (agent: AgentCaller): string => `feed/${agent.instanceId ?? ""}`;

const WRITE_SQL = `
INSERT INTO knowledge_handed (agent_id, client, conversation_id, acked, pending, updated_at)
SELECT $1, r.client, r.conversation_id, r.acked, r.pending, $3::timestamp
FROM jsonb_to_recordset($2::jsonb) AS r(client text, conversation_id text, acked jsonb, pending jsonb)
ON CONFLICT (agent_id, client, conversation_id)
DO UPDATE SET acked = EXCLUDED.acked, pending = EXCLUDED.pending, updated_at = EXCLUDED.updated_at`;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What a hand-out attaches to an event or an envelope: the event's own fields (one schema). */
export type Attached = Pick<UpdatesEvent, "brief" | "notes">;

export function handedStore(sql: SqlExecutor) {
  /** The rooms' knowledge, the agent's clients' records there (by `client key`) and its Bay: one statement. */
  async function read(agentId: string, clients: string[], keys: string[]) {
    const found = await readRooms(sql, keys, { agentId, clients });
    const records = new Map<string, HandedRecord>();
    for (const [key, byClient] of found.handed)
      for (const [client, [acked, pending]] of byClient)
        records.set(`${client} ${key}`, { acked: acked as Held, pending: pending as Pending[] });
    return { bay: found.readerBay, records, rooms: found.rooms };
  }

  async function write(
    agentId: string,
    rows: { client: string; conversation_id: string; acked: Held; pending: Pending[] }[],
  ) {
    if (rows.length > 0) await sql.query(WRITE_SQL, [agentId, JSON.stringify(rows), new Date().toISOString()]);
  }

  /** The titles of notes a client held that are pinned no more (B-251: "" once deleted). */
  async function titlesOf(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await sql.query<{ id: string; title: string }>(
      "SELECT id, title FROM notes WHERE id = ANY($1::text[])",
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.title]));
  }

  /** Ids a client holds as pinned that no room's knowledge pins now: the ones `removed` may name. */
  const unpinned = (helds: Held[], rooms: Map<string, StoredKnowledge>): string[] => {
    const pinned = new Set([...rooms.values()].flatMap((k) => k.pinned.map((n) => n.id)));
    return [...new Set(helds.flatMap((h) => Object.keys(h.n?.p ?? {})))].filter((id) => !pinned.has(id));
  };

  return {
    /**
     * Hands a feed batch's events their brief and notes (the features asked), in order, as one
     * client of the agent. `at.confirmed` is the cursor the client itself sent (an /updates cursor, a
     * /ws hello's resume): what it holds for sure. `at.position` is where the batch follows: on /ws,
     * the end of the batches this connection sent since, which the client may or may not have — their
     * hand-outs stay pending, so a resume from an older cursor hands them again. Every event gets its
     * project's current version. One statement to read; one to write when a hand-out goes.
     */
    async feed(
      agent: AgentCaller,
      features: Features,
      at: { confirmed: number; position: number },
      events: UpdatesEvent[],
    ): Promise<UpdatesEvent[]> {
      if (features.size === 0 || events.length === 0) return events;
      const client = feedClient(agent);
      const keys = [...new Set(events.map((e) => e.conversationId))];
      const { bay, records, rooms } = await read(agent.id, [client, PROJECT_CLIENT], keys);
      // In each room: what the client confirmed (the last hand-out at or before its cursor), the
      // hand-outs sent since that it has not confirmed (kept pending), and those of events served
      // again now (dropped: they are handed again, merged with what changed since). Confirming alone
      // writes nothing (the next read confirms again); a new hand-out writes the collapsed record.
      const state = new Map<string, { held: Held; record: HandedRecord; changed: boolean }>();
      for (const key of keys) {
        const record = records.get(`${client} ${key}`) ?? { acked: {}, pending: [] };
        const acked = record.pending.filter((p) => p.seq <= at.confirmed).at(-1)?.held ?? record.acked;
        const sent = record.pending.filter((p) => p.seq > at.confirmed && p.seq <= at.position);
        const current = sent.at(-1)?.held ?? acked;
        const held = withProjectRead(current, records.get(`${PROJECT_CLIENT} ${key}`)?.acked.b);
        state.set(key, { held, record: { acked, pending: sent }, changed: false });
      }
      const titles = await titlesOf(
        unpinned(
          [...state.values()].map((s) => s.held),
          rooms,
        ),
      );
      const out = events.map((event) => {
        const k = rooms.get(event.conversationId);
        const s = state.get(event.conversationId);
        if (!k || !s) return event;
        const room = knowledgeFor(k, isVisiting(bay ?? "", k.bayId));
        const given = handout(s.held, room, features, (id) => titles.get(id) ?? null);
        const project = { id: room.project.id, name: room.project.name, version: room.project.version };
        const attached: Attached = {};
        if ("brief" in given) attached.brief = given.brief ?? null;
        if (given.notes) attached.notes = given.notes;
        if (!same(given.held, s.held)) {
          const seq = seqOfMessageId(event.message.id) ?? 0;
          s.record.pending.push({ seq, held: given.held });
          s.held = given.held;
          s.changed = true;
        }
        return { ...event, project, ...attached };
      });
      await write(
        agent.id,
        keys.flatMap((key) => {
          const s = state.get(key);
          return s?.changed ? [{ client, conversation_id: key, ...s.record }] : [];
        }),
      );
      return out;
    },

    /**
     * The envelope's brief and notes (B-257, B-269): at most once per version across context reads
     * (GET /context, the context of GET /messages, MCP get_room_context / get_messages).
     */
    async context(agent: AgentCaller, key: string, features: Features): Promise<Attached> {
      if (features.size === 0) return {};
      const { bay, records, rooms } = await read(agent.id, [CONTEXT_CLIENT, PROJECT_CLIENT], [key]);
      const k = rooms.get(key);
      if (!k) return {};
      const acked = records.get(`${CONTEXT_CLIENT} ${key}`)?.acked ?? {};
      const held = withProjectRead(acked, records.get(`${PROJECT_CLIENT} ${key}`)?.acked.b);
      const titles = await titlesOf(unpinned([held], rooms));
      const given = handout(
        held,
        knowledgeFor(k, isVisiting(bay ?? "", k.bayId)),
        features,
        (id) => titles.get(id) ?? null,
      );
      if (!same(given.held, acked))
        await write(agent.id, [{ client: CONTEXT_CLIENT, conversation_id: key, acked: given.held, pending: [] }]);
      const attached: Attached = {};
      if ("brief" in given) attached.brief = given.brief ?? null;
      if (given.notes) attached.notes = given.notes;
      return attached;
    },

    /** get_project (B-272): the agent holds this version of the brief, in every client. */
    async projectRead(agentId: string, key: string, version: number, hasText: boolean): Promise<void> {
      await write(agentId, [
        { client: PROJECT_CLIENT, conversation_id: key, acked: { b: [version, hasText] }, pending: [] },
      ]);
    },

    /** session_start / compact_end (B-254, B-270): every client is handed everything again. */
    async rearm(agentId: string): Promise<void> {
      await sql.query("DELETE FROM knowledge_handed WHERE agent_id = $1", [agentId]);
    },
  };
}
export type HandedStore = ReturnType<typeof handedStore>;

import { type PinnedNote, type SharedKnowledge, SHELF_TITLES_MAX, type ShelfTitle } from "@maity/domain";
import type { SqlExecutor } from "@maity/db";

// A room's knowledge as it stands (domain RoomKnowledge): its project's brief, its pinned notes with
// their bodies (the project's, then the chat's, oldest first) and its shelf's newest titles with the
// shelf's size — for many rooms in one statement (a feed batch, a webhook round).

/** Whether the project has any file a listing could count (B-168, B-174): none, and every count is 0. */
const ANY_FILE = `
  EXISTS (SELECT 1 FROM attachments a WHERE a.deleted_at IS NULL AND (a.library_project_id = p.id
    OR (a.event_seq IS NOT NULL AND a.conversation_id IN (SELECT c2.id FROM conversations c2 WHERE c2.project_id = p.id))))
    AS any_file,`;
/** A reader's ($2 agent, $3 its clients) home Bay and what those clients were handed in the room. */
const READER = `
  false AS any_file,
  (SELECT o.bay_id FROM agents a JOIN humans o ON o.id = a.owner_id WHERE a.id = $2) AS reader_bay,
  (SELECT coalesce(json_agg(json_build_array(h.client, h.acked, h.pending)), '[]'::json) FROM knowledge_handed h
     WHERE h.agent_id = $2 AND h.client = ANY($3::text[]) AND h.conversation_id = c.id) AS handed,`;

/**
 * The rooms' knowledge, $1 conversation keys; the notes' order is domain compareNotes'. For a webhook
 * round also whether the project has files; for a reader (a feed batch, an envelope) instead what its
 * clients were handed in each room and its home Bay — one statement either way.
 */
const roomsSql = (reader: boolean) => `
SELECT c.id AS key, p.id, p.name, p.brief, p.brief_version, p.bay_id, p.share_with_visitors,
  (SELECT handle FROM bays WHERE id = p.bay_id) AS bay_handle,${reader ? READER : ANY_FILE}
  (SELECT coalesce(json_agg(json_build_array(n.id, n.conversation_id IS NULL, n.title, n.version, n.body)
                            ORDER BY n.conversation_id IS NOT NULL, n.created_at, n.id), '[]'::json)
     FROM notes n WHERE n.project_id = p.id AND (n.conversation_id IS NULL OR n.conversation_id = c.id) AND n.pinned)
    AS pinned,
  (SELECT coalesce(json_agg(json_build_array(s.id, s.project, s.title) ORDER BY s.created_at DESC, s.id), '[]'::json)
     FROM (SELECT n.id, n.conversation_id IS NULL AS project, n.title, n.created_at FROM notes n
           WHERE n.project_id = p.id AND (n.conversation_id IS NULL OR n.conversation_id = c.id) AND NOT n.pinned
           ORDER BY n.created_at DESC, n.id LIMIT ${SHELF_TITLES_MAX}) s) AS shelf,
  (SELECT count(*)::int FROM notes n
     WHERE n.project_id = p.id AND (n.conversation_id IS NULL OR n.conversation_id = c.id) AND NOT n.pinned) AS shelf_count,
  (SELECT count(*)::int FROM notes n WHERE n.conversation_id = c.id AND NOT n.pinned) AS chat_shelf_count
FROM conversations c JOIN projects p ON p.id = c.project_id
WHERE c.id = ANY($1::text[])`;
const ROOMS_SQL = roomsSql(false);
const READER_ROOMS_SQL = roomsSql(true);

type Row = {
  key: string;
  id: string;
  name: string;
  brief: string | null;
  brief_version: number;
  bay_id: string;
  share_with_visitors: boolean;
  bay_handle: string;
  any_file: boolean;
  pinned: [string, boolean, string, number, string][];
  shelf: [string, boolean, string][];
  shelf_count: number;
  chat_shelf_count: number;
  reader_bay?: string | null;
  handed?: [string, unknown, unknown][];
};

/** A room's knowledge, with its project's Bay (whether a reader visits there). */
export type StoredKnowledge = SharedKnowledge & {
  bayId: string;
  /** The project's Bay by its handle: a visitor reads the brief as that Bay's room text. */
  bayHandle: string;
  /** The project has a file some listing could count (the webhook's Files line and fileCount). */
  anyFile: boolean;
};

export async function readRoomKnowledge(
  db: SqlExecutor,
  keys: readonly string[],
): Promise<Map<string, StoredKnowledge>> {
  return (await readRooms(db, keys, null)).rooms;
}

/** What a reader's clients were handed in a room, by client: `[acked, pending]` as stored. */
export type HandedRows = Map<string, Map<string, [unknown, unknown]>>;

/** The rooms' knowledge and, for a reader, its clients' records there and its home Bay (one statement). */
export async function readRooms(
  db: SqlExecutor,
  keys: readonly string[],
  reader: { agentId: string; clients: string[] } | null,
): Promise<{ rooms: Map<string, StoredKnowledge>; handed: HandedRows; readerBay: string | null }> {
  const out = new Map<string, StoredKnowledge>();
  const handed: HandedRows = new Map();
  let readerBay: string | null = null;
  if (keys.length === 0) return { rooms: out, handed, readerBay };
  const unique = [...new Set(keys)];
  const rows = reader
    ? await db.query<Row>(READER_ROOMS_SQL, [unique, reader.agentId, reader.clients])
    : await db.query<Row>(ROOMS_SQL, [unique]);
  for (const r of rows) {
    readerBay = r.reader_bay ?? readerBay;
    handed.set(r.key, new Map((r.handed ?? []).map(([client, acked, pending]) => [client, [acked, pending]])));
    out.set(r.key, {
      project: { id: r.id, name: r.name, version: Number(r.brief_version), brief: r.brief },
      pinned: r.pinned.map(
        ([id, project, title, version, body]): PinnedNote => ({
          id,
          scope: project ? "project" : "chat",
          title,
          version: Number(version),
          body,
        }),
      ),
      shelf: r.shelf.map(([id, project, title]): ShelfTitle => ({ id, title, scope: project ? "project" : "chat" })),
      shelfCount: Number(r.shelf_count),
      chatShelfCount: Number(r.chat_shelf_count),
      bayId: r.bay_id,
      bayHandle: r.bay_handle,
      shared: r.share_with_visitors,
      anyFile: r.any_file,
    });
  }
  return { rooms: out, handed, readerBay };
}

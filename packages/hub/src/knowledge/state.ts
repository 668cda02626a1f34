import { type PinnedNote, type RoomKnowledge, SHELF_TITLES_MAX, type ShelfTitle } from "@maity/domain";
import type { SqlExecutor } from "@maity/db";

// A room's knowledge as it stands (domain RoomKnowledge): its project's brief, its pinned notes with
// their bodies (the project's, then the chat's, oldest first) and its shelf's newest titles with the
// shelf's size — for many rooms in one statement (a feed batch, a webhook round).

/** The rooms' knowledge, $1 conversation keys; the notes' order is domain compareNotes'. */
const ROOMS_SQL = `
SELECT c.id AS key, p.id, p.name, p.brief, p.brief_version, p.bay_id,
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

type Row = {
  key: string;
  id: string;
  name: string;
  brief: string | null;
  brief_version: number;
  bay_id: string;
  pinned: [string, boolean, string, number, string][];
  shelf: [string, boolean, string][];
  shelf_count: number;
  chat_shelf_count: number;
};

/** A room's knowledge, with its project's Bay (whether a reader visits there). */
export type StoredKnowledge = RoomKnowledge & { bayId: string; chatShelfCount: number };

export async function readRoomKnowledge(
  db: SqlExecutor,
  keys: readonly string[],
): Promise<Map<string, StoredKnowledge>> {
  const out = new Map<string, StoredKnowledge>();
  if (keys.length === 0) return out;
  const rows = await db.query<Row>(ROOMS_SQL, [[...new Set(keys)]]);
  for (const r of rows)
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
    });
  return out;
}

/**
 * A room's knowledge as one reader may have it: a visiting agent gets no brief and no project note
 * (B-248, B-274; sharing with visitors is the project's choice, not made yet), only the chat's own.
 */
export function knowledgeFor(k: StoredKnowledge, visiting: boolean): RoomKnowledge {
  if (!visiting) return k;
  // The chat's titles among the newest of the whole shelf (a visitor may see fewer than the limit
  // listed while more are counted: list_notes lists them all).
  return {
    project: { ...k.project, brief: null },
    pinned: k.pinned.filter((n) => n.scope === "chat"),
    shelf: k.shelf.filter((t) => t.scope === "chat"),
    shelfCount: k.chatShelfCount,
  };
}

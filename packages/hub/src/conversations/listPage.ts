import { type ListKey, PREVIEW_LIMIT } from "@maity/domain";
import type { Caller } from "../access/caller.ts";
import type { RawQueryable } from "../raw.ts";
import {
  ACCESS_SQL,
  CONVERSATION_COLUMNS,
  DETAIL_COLUMNS,
  DETAIL_JOINS,
  type KeyRow,
  keyRowOf,
  type RawKeyRow,
} from "../access/visibility.ts";

// §9.3: one page of a conversation list, its order and its totals in one statement. The order key
// of every visible conversation comes from its own columns — the participation's unread counter
// (counters.ts), the pin, conversations.last_message_at — so ordering all of them counts no
// message; only the page's rows are then read in full (last message, details).

// $8 band, $9 activity, $10 project full name, $11 public id of the cursor (all null: the first
// page); $12 rows to read (the page and one more, to know whether a next page exists).
// Activity: the last message when it is inside the caller's window, else a group chat's created_at
// or the direct conversation's agent's joined_at (§9.3 "Across projects"). Names compare as bytes
// (COLLATE "C"), as the cursor's keys compare in the domain (compareListKeys).

const LIST_SQL = `${ACCESS_SQL},
keyed AS (
  SELECT v.id, v.access, v.window_seq, v.marker, v.unread, v.mentions_unread, v.project_id, v.public_id,
         CASE WHEN coalesce(v.unread, 0) > 0 THEN (CASE WHEN v.id = ANY (pinned.ids) THEN 0 ELSE 1 END)
              ELSE (CASE WHEN v.id = ANY (pinned.ids) THEN 2 ELSE 3 END) END AS band,
         coalesce(CASE WHEN v.last_seq > v.window_seq THEN v.last_message_at END,
                  CASE WHEN v.kind = 'direct' THEN am.joined_at END, v.created_at) AS activity
  -- The caller's pins (at most 20, §9.3) read once, not probed for every conversation.
  FROM visible v
  CROSS JOIN (SELECT ARRAY(SELECT conversation_id FROM pins WHERE human_id = $1) AS ids) pinned
  LEFT JOIN memberships am ON v.kind = 'direct' AND am.project_id = v.project_id AND am.member_id = v.agent_id
),
-- Names only for the candidates: the rows after the cursor's (band, activity), cut at the page
-- WITH TIES (the page is among them whatever the names), and the cursor's own tie group.
candidates AS (
  (SELECT * FROM keyed
   WHERE $8::int IS NULL OR band > $8::int OR (band = $8::int AND activity < $9::timestamp)
   ORDER BY band, activity DESC FETCH FIRST ($12::int) ROWS WITH TIES)
  UNION ALL
  (SELECT * FROM keyed WHERE band = $8::int AND activity = $9::timestamp)
),
page AS (
  SELECT k.id, k.access, k.window_seq, k.marker, k.unread, k.mentions_unread, k.band, k.activity,
         (b.handle || '/' || pr.slug) COLLATE "C" AS full_name, k.public_id COLLATE "C" AS public_id
  FROM candidates k
  JOIN projects pr ON pr.id = k.project_id
  JOIN bays b ON b.id = pr.bay_id
  WHERE $8::int IS NULL OR k.band <> $8::int OR k.activity <> $9::timestamp
    OR (b.handle || '/' || pr.slug) COLLATE "C" > $10::text
    OR ((b.handle || '/' || pr.slug) COLLATE "C" = $10::text AND k.public_id COLLATE "C" > $11::text)
  ORDER BY band, activity DESC, full_name, public_id
  LIMIT $12::int
),
totals AS (
  SELECT coalesce(sum(unread), 0)::int AS total_unread, coalesce(sum(mentions_unread), 0)::int AS total_mentions
  FROM keyed WHERE access <> 'observer'
),
details AS (
  ${CONVERSATION_COLUMNS}${DETAIL_COLUMNS},
         v.band, v.activity AS list_activity, v.full_name AS list_project
  FROM page v${DETAIL_JOINS}
)
SELECT t.total_unread, t.total_mentions, d.* FROM totals t LEFT JOIN details d ON true
ORDER BY d.band, d.list_activity DESC, d.list_project COLLATE "C", d.id COLLATE "C"`;

type RawListRow = RawKeyRow & {
  total_unread: number;
  total_mentions: number;
  band: number | null;
  list_activity: Date | string | null;
  list_project: string | null;
};

export interface ListPageQuery {
  projectId: string | null;
  observed: boolean;
  limit: number;
  cursor: ListKey | null;
}

export interface ListPage {
  rows: KeyRow[];
  next: ListKey | null;
  totals: { unread: number; mentions_unread: number };
}

const bandOf = (n: number): ListKey["band"] => (n === 0 || n === 1 || n === 2 ? n : 3);

/** One statement: the page after `cursor` in band order, the key of its last row, and the totals over all. */
export async function readListPage(db: RawQueryable, caller: Caller, query: ListPageQuery): Promise<ListPage> {
  const c = query.cursor;
  const raw = await db.$queryRawUnsafe<RawListRow[]>(
    LIST_SQL,
    caller.id,
    caller.kind,
    query.projectId,
    query.observed,
    null,
    PREVIEW_LIMIT,
    null,
    c?.band ?? null,
    c?.activity ?? null,
    c?.project ?? null,
    c?.id ?? null,
    query.limit + 1,
  );
  const first = raw[0];
  const totals = { unread: Number(first?.total_unread ?? 0), mentions_unread: Number(first?.total_mentions ?? 0) };
  const withRows = raw.filter((r) => r.key !== null);
  const keys: ListKey[] = withRows.map((r) => ({
    band: bandOf(Number(r.band)),
    activity: new Date(r.list_activity ?? 0).toISOString(),
    project: r.list_project ?? "",
    id: r.id,
  }));
  const rows = withRows.slice(0, query.limit).map(keyRowOf);
  const next = withRows.length > query.limit ? (keys[query.limit - 1] ?? null) : null;
  return { rows, next, totals };
}

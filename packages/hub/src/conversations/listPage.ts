import { type ListKey, PREVIEW_LIMIT } from "@maity/domain";
import type { Caller } from "../access/caller.ts";
import type { RawQueryable } from "../raw.ts";
import {
  CONVERSATION_COLUMNS,
  DETAIL_COLUMNS,
  DETAIL_JOINS,
  type KeyRow,
  keyRowOf,
  mineRule,
  type RawKeyRow,
} from "../access/visibility.ts";

// §9.3: one page of a conversation list, its order and its totals in one statement, at a cost that
// follows the page, not the number of chats the caller is in (M-227). The caller's participations
// carry their order key: the unread counter (counters.ts) and activity_at (kept by the chat write,
// set at the join). Two partial indexes over open participations, (member_id, activity_at DESC)
// where unread > 0 and where it is not, hand out the unpinned bands — 1 (something unread) and 3
// (nothing) — newest first, so each is a walk cut at the page (FETCH FIRST … WITH TIES: the tie
// group on the activity, whose names decide). The pins (at most 20) and, with observed, the chats
// read along are read whole and sorted in; only the page's rows are then read in full (last
// message, details). The totals sum the counters of the rows with something unread (nothing else
// has an unread message or a mention), through the first index.

// $1 caller id, $2 caller kind, $3 project id (null: across projects), $4 observed, $5 band,
// $7 activity, $8 project full name, $9 public id of the cursor (all null: the first page); $6 the
// preview's length; $10 rows to read (the page and one more, to know whether a next page exists).
// Activity: the last message when it is inside the caller's window, else a group chat's created_at
// or the direct conversation's agent's joined_at (§9.3 "Across projects"). Names compare as bytes
// (COLLATE "C"), as the cursor's keys compare in the domain (compareListKeys).

// The projects as a hashed set (IS TRUE keeps the IN a filter, not a join the planner would run
// row by row): one probe a row, where `= ANY (array)` compared each row with every project.
const MINE = mineRule("(p.project_id IN (SELECT unnest(ids) FROM my_projects)) IS TRUE");
const OWN_COLUMNS = `SELECT p.conversation_id AS id, p.joined_seq AS window_seq, p.read_marker_seq AS marker,
         p.unread, p.mentions_unread, CASE WHEN p.direct_agent_id IS NULL THEN 'participant' ELSE 'party' END AS access,
         p.project_id, p.activity_at AS activity`;
const OWN_ROWS = `FROM participations p WHERE p.member_id = $1 AND p.left_at IS NULL AND ${MINE}`;

/** Which of the two indexes serves an unpinned band: 1 (something unread) or 3 (nothing). */
const UNREAD = { 1: "p.unread > 0", 3: "p.unread <= 0" } as const;

/**
 * One unpinned band: after the cursor, cut at the page with its ties; and the cursor's own tie group
 * in it, whose names decide which of it are still to come.
 */
const walk = (band: 1 | 3) => `(${OWN_COLUMNS}, ${band} AS band
  ${OWN_ROWS} AND ${UNREAD[band]}
    AND ($5::int IS NULL OR $5::int <= ${band})
    AND p.activity_at < (CASE WHEN $5::int = ${band} THEN $7::timestamp ELSE 'infinity' END)
    AND NOT (p.conversation_id = ANY ((SELECT ids FROM pinned)::text[]))
  ORDER BY p.activity_at DESC FETCH FIRST ($10::int) ROWS WITH TIES)
  UNION ALL
  (${OWN_COLUMNS}, ${band} AS band
   ${OWN_ROWS} AND ${UNREAD[band]} AND $5::int = ${band} AND p.activity_at = $7::timestamp
     AND NOT (p.conversation_id = ANY ((SELECT ids FROM pinned)::text[])))`;

const LIST_SQL = `
WITH my_projects AS (
  SELECT ARRAY(SELECT m.project_id FROM memberships m
               WHERE m.member_id = $1 AND m.status = 'active' AND ($3::text IS NULL OR m.project_id = $3)) AS ids
),
-- The caller's pins (at most 20, §9.3) read once, not probed for every conversation.
pinned AS (SELECT ARRAY(SELECT conversation_id FROM pins WHERE human_id = $1) AS ids),
candidates AS (
  ${walk(1)}
  UNION ALL
  ${walk(3)}
  UNION ALL
  -- The pinned ones the caller takes part in: band 0 with something unread, else 2.
  -- From each pin, the chat's open participations by their conversation's index (OFFSET 0 keeps the
  -- planner, which has no statistics on PGlite, from walking all of the caller's instead).
  (${OWN_COLUMNS}, CASE WHEN p.unread > 0 THEN 0 ELSE 2 END AS band
   FROM pins pn CROSS JOIN LATERAL (SELECT * FROM participations cp
     WHERE cp.conversation_id = pn.conversation_id AND cp.left_at IS NULL OFFSET 0) p
   WHERE pn.human_id = $1 AND p.member_id = $1 AND ${MINE})
  UNION ALL
  -- observed: group chats an agent the caller owns is in while the caller is not (§9.2 "reads
  -- along"); across projects only where the caller is a member (§9.3 "Only memberships count"), in
  -- one project's routes also from outside. Its null unread counts as none: band 2 or 3.
  (SELECT c.id, MIN(p.joined_seq) AS window_seq, NULL::int AS marker, NULL::int AS unread,
          NULL::int AS mentions_unread, 'observer' AS access, c.project_id,
          coalesce(CASE WHEN c.last_seq > MIN(p.joined_seq) THEN c.last_message_at END, c.created_at) AS activity,
          CASE WHEN c.id = ANY ((SELECT ids FROM pinned)::text[]) THEN 2 ELSE 3 END AS band
   FROM agents a
   JOIN participations p ON p.member_id = a.id AND p.left_at IS NULL
   JOIN conversations c ON c.id = p.conversation_id AND c.kind = 'group'
   WHERE $4 AND $2 = 'human' AND a.owner_id = $1
     AND (($3::text IS NULL AND c.project_id = ANY ((SELECT ids FROM my_projects)::text[])) OR c.project_id = $3)
     AND NOT EXISTS (SELECT 1 FROM participations mp WHERE mp.conversation_id = c.id AND mp.member_id = $1
                       AND mp.left_at IS NULL AND mp.project_id = ANY ((SELECT ids FROM my_projects)::text[]))
   GROUP BY c.id)
),
page AS (
  SELECT k.id, k.access, k.window_seq, k.marker, k.unread, k.mentions_unread, k.band, k.activity,
         (b.handle || '/' || pr.slug) COLLATE "C" AS full_name, kc.public_id COLLATE "C" AS public_id
  FROM candidates k
  JOIN conversations kc ON kc.id = k.id
  JOIN projects pr ON pr.id = k.project_id
  JOIN bays b ON b.id = pr.bay_id
  WHERE $5::int IS NULL OR k.band > $5::int OR (k.band = $5::int AND (k.activity < $7::timestamp
    OR (k.activity = $7::timestamp AND ((b.handle || '/' || pr.slug) COLLATE "C" > $8::text
      OR ((b.handle || '/' || pr.slug) COLLATE "C" = $8::text AND kc.public_id COLLATE "C" > $9::text)))))
  ORDER BY band, activity DESC, full_name, public_id
  LIMIT $10::int
),
-- Across projects only (the per-project list carries no totals): the counters of the rows with
-- something unread, through the first index.
totals AS (
  SELECT coalesce(sum(p.unread), 0)::int AS total_unread, coalesce(sum(p.mentions_unread), 0)::int AS total_mentions
  ${OWN_ROWS} AND ${UNREAD[1]} AND $3::text IS NULL
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
    c?.band ?? null,
    PREVIEW_LIMIT,
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

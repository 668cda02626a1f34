import { bandOf, type ListKey, PREVIEW_LIMIT, projectFullName } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { RawQueryable } from "../raw.ts";
import type { Caller } from "./caller.ts";

// The read side of §9: which conversations a caller sees and how (one keys statement), and who is in
// them (one participants statement). The per-project list, GET /me/conversations, GET
// …/conversations/{id} and every access check of a write read through the same queries, so
// visibility is decided in one place: hidden answers exactly like missing (§1.3). How a visible
// conversation is rendered is conversations/render.ts.

export type Relation = "party" | "participant" | "observer";

/** One visible conversation, with the caller's window and counts. */
export interface KeyRow {
  key: string; // Conversation.id (internal)
  id: string; // public id: agt-… or cnv-…
  kind: "direct" | "group";
  projectId: string;
  projectOwner: string;
  projectSlug: string;
  projectName: string;
  /** The project's brief version (B-262): grows only when the brief's text changes. */
  projectVersion: number;
  projectArchived: boolean;
  access: Relation;
  /** Messages with a seq above this are in the caller's window (§9.2 "What a participant reads"). */
  windowSeq: number;
  /**
   * A visiting agent's placement floor (DESIGN §4c, B-301) where the read knows it (agentsInRoom):
   * 0 when its sponsor shared the earlier history; null or absent: its window.
   */
  historyFloor?: number | null;
  /** The caller's read marker; null for an observer. */
  marker: number | null;
  title: string | null;
  createdById: string | null;
  createdAt: Date;
  closedAt: Date | null;
  closedReason: string | null;
  agentId: string | null;
  agentJoinedAt: Date | null;
  /** The group chat's reply policy (004 §4); direct conversations carry the defaults, unused. */
  policy: { replyPolicy: string; designatedAgentId: string | null; maxAgentRounds: number; customRules: string | null };
  last: { seq: number; from: string; body: string | null; sentAt: Date; redacted: boolean } | null;
  unread: number | null;
  mentionsUnread: number | null;
  pinned: boolean;
}

export type RawKeyRow = {
  key: string;
  id: string;
  kind: "direct" | "group";
  project_id: string;
  project_owner: string;
  project_slug: string;
  project_name: string;
  project_version: number;
  project_archived: boolean;
  access: Relation;
  window_seq: number;
  marker: number | null;
  title: string | null;
  created_by_id: string | null;
  created_at: Date | string;
  closed_at: Date | string | null;
  closed_reason: string | null;
  agent_id: string | null;
  agent_joined_at: Date | string | null;
  reply_policy: string;
  designated_agent_id: string | null;
  max_agent_rounds: number;
  custom_rules: string | null;
  last_seq: number | null;
  last_from: string | null;
  last_body: string | null;
  last_sent_at: Date | string | null;
  last_redacted: boolean | null;
  unread: number | null;
  mentions_unread: number | null;
  pinned: boolean;
};

const date = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));
const dateOrNull = (v: Date | string | null): Date | null => (v === null ? null : date(v));

/**
 * The caller's own open participation `p` is visible (mine): its conversation is in one of the
 * projects where the caller is an active member (`inMyProjects`, a condition on p.project_id) and,
 * when direct, its agent is an active member (§9.1). Read from the participation's copies of the
 * conversation's project_id and direct agent, so the lists (conversations/listPage.ts) decide it
 * without the chat.
 */
export const mineRule = (inMyProjects: string): string => `${inMyProjects}
    AND (p.direct_agent_id IS NULL OR EXISTS (SELECT 1 FROM memberships am
      WHERE am.project_id = p.project_id AND am.member_id = p.direct_agent_id AND am.status = 'active'
      -- One probe of the unique index for each direct row: without OFFSET the planner may hash every
      -- active membership of the hub instead.
      OFFSET 0))`;

// $1 caller id, $2 caller kind, $3 project id (null: every project the caller is a member of),
// $4 observed, $5 conversation public id (null: all), $6 preview length, $7 conversation key (null: all).
// mine: the caller's own participations in projects where it is an active member; a direct
// conversation exists only while its agent is a member (§9.1). observed: group chats an agent the
// caller owns is in while the caller is not (§9.2 "reads along"); across projects only where the
// caller is a member (§9.3 "Only memberships count"), in one project's routes also from outside.
/** Who sees which conversation, and how (participant, party, observer): decided here only. */
export const ACCESS_SQL = `
WITH my_projects AS (
  SELECT m.project_id FROM memberships m
  WHERE m.member_id = $1 AND m.status = 'active' AND ($3::text IS NULL OR m.project_id = $3)
),
mine AS (
  SELECT c.id, p.joined_seq AS window_seq, p.read_marker_seq AS marker, p.unread, p.mentions_unread,
         CASE WHEN c.kind = 'direct' THEN 'party' ELSE 'participant' END AS access,
         c.kind, c.project_id, c.public_id, c.agent_id, c.last_seq, c.last_message_at, c.created_at,
         p.history_floor
  FROM participations p JOIN conversations c ON c.id = p.conversation_id
  WHERE p.member_id = $1 AND p.left_at IS NULL
    -- One conversation asked for: its participations by their conversation's index, not all of the caller's.
    AND ($7::text IS NULL OR p.conversation_id = $7)
    AND ($5::text IS NULL OR p.conversation_id IN (
      SELECT cc.id FROM conversations cc WHERE cc.public_id = $5 AND ($3::text IS NULL OR cc.project_id = $3)))
    AND ($5::text IS NULL OR c.public_id = $5)
    AND ($7::text IS NULL OR c.id = $7)
    -- An array computed once, not a join: with no statistics the planner joined 2,000
    -- participations to the CTE row by row (bench:list).
    AND ${mineRule("p.project_id = ANY (ARRAY(SELECT project_id FROM my_projects))")}
),
observed AS (
  SELECT c.id, MIN(p.joined_seq) AS window_seq, NULL::int AS marker, NULL::int AS unread, NULL::int AS mentions_unread,
         'observer' AS access,
         c.kind, c.project_id, c.public_id, c.agent_id, c.last_seq, c.last_message_at, c.created_at,
         NULL::int AS history_floor
  FROM agents a
  JOIN participations p ON p.member_id = a.id AND p.left_at IS NULL
  JOIN conversations c ON c.id = p.conversation_id AND c.kind = 'group'
  WHERE $4 AND $2 = 'human' AND a.owner_id = $1
    AND ($5::text IS NULL OR c.public_id = $5)
    AND ($7::text IS NULL OR c.id = $7)
    AND (($3::text IS NULL AND c.project_id IN (SELECT project_id FROM my_projects)) OR c.project_id = $3)
    AND NOT EXISTS (SELECT 1 FROM mine WHERE mine.id = c.id)
  GROUP BY c.id
),
visible AS (SELECT * FROM mine UNION ALL SELECT * FROM observed)
`;

/** The conversation's own columns and the caller's access, as both selects start. */
export const CONVERSATION_COLUMNS = `SELECT c.id AS key, c.public_id AS id, c.kind, c.project_id,
       b.handle AS project_owner, pr.slug AS project_slug, pr.name AS project_name, pr.brief_version AS project_version,
       (pr.archived_at IS NOT NULL) AS project_archived,
       v.access, v.window_seq, v.marker,
       c.title, c.created_by_id, c.created_at, c.closed_at, c.closed_reason, c.agent_id,
       c.reply_policy, c.designated_agent_id, c.max_agent_rounds, c.custom_rules,`;

/**
 * The list's columns of one visible conversation `v` (joined to `c`, `pr`, `b` and its last
 * message `lm`): unread and mentions_unread are the participation's counters (counters.ts), an
 * observer's null (§9.3).
 */
export const DETAIL_COLUMNS = `
       (SELECT am.joined_at FROM memberships am WHERE am.project_id = c.project_id AND am.member_id = c.agent_id) AS agent_joined_at,
       lm.seq AS last_seq, lm.from_id AS last_from, left(lm.body, $6) AS last_body, lm.sent_at AS last_sent_at, lm.redacted AS last_redacted,
       v.unread, v.mentions_unread,
       EXISTS (SELECT 1 FROM pins pn WHERE pn.human_id = $1 AND pn.conversation_id = c.id) AS pinned`;

/** From the visible rows to their conversation, project, Bay and last message. */
export const DETAIL_JOINS = `
JOIN conversations c ON c.id = v.id
JOIN projects pr ON pr.id = c.project_id
JOIN bays b ON b.id = pr.bay_id
-- conversations.last_seq is the newest message: inside the window exactly when above its start.
LEFT JOIN events lm ON lm.seq = c.last_seq AND c.last_seq > v.window_seq`;

const KEYS_SQL = `${ACCESS_SQL}
${CONVERSATION_COLUMNS}${DETAIL_COLUMNS}
FROM visible v${DETAIL_JOINS}`;

/** The same access, without the list's counts, last message and pin: what a write needs (the send's hot path). */
const WRITE_KEYS_SQL = `${ACCESS_SQL}
${CONVERSATION_COLUMNS}
       NULL::timestamp AS agent_joined_at, c.last_seq, NULL::text AS last_from, left(NULL::text, $6) AS last_body,
       NULL::timestamp AS last_sent_at, NULL::boolean AS last_redacted,
       NULL::int AS unread, NULL::int AS mentions_unread, false AS pinned
FROM visible v
JOIN conversations c ON c.id = v.id
JOIN projects pr ON pr.id = c.project_id
JOIN bays b ON b.id = pr.bay_id`;

export interface KeysQuery {
  projectId?: string | null;
  observed?: boolean;
  conversationId?: string | null;
  /** The internal key (the agent API's global conversation id). */
  conversationKey?: string | null;
  /** Only access and the conversation's own fields (a write's check): no counts, last message or pin. */
  lean?: boolean;
}

/** One statement: every conversation `caller` sees (in a project, or across its memberships). */
export async function readKeys(db: RawQueryable, caller: Caller, query: KeysQuery): Promise<KeyRow[]> {
  const rows = await db.$queryRawUnsafe<RawKeyRow[]>(
    query.lean ? WRITE_KEYS_SQL : KEYS_SQL,
    caller.id,
    caller.kind,
    query.projectId ?? null,
    query.observed ?? false,
    query.conversationId ?? null,
    PREVIEW_LIMIT,
    query.conversationKey ?? null,
  );
  return rows.map(keyRowOf);
}

/** A key row as the driver returns it, typed. */
export function keyRowOf(r: RawKeyRow): KeyRow {
  return {
    key: r.key,
    id: r.id,
    kind: r.kind,
    projectId: r.project_id,
    projectOwner: r.project_owner,
    projectSlug: r.project_slug,
    projectName: r.project_name,
    projectVersion: Number(r.project_version),
    projectArchived: r.project_archived,
    access: r.access,
    windowSeq: Number(r.window_seq),
    marker: r.marker === null ? null : Number(r.marker),
    title: r.title,
    createdById: r.created_by_id,
    createdAt: date(r.created_at),
    closedAt: dateOrNull(r.closed_at),
    closedReason: r.closed_reason,
    agentId: r.agent_id,
    agentJoinedAt: dateOrNull(r.agent_joined_at),
    policy: {
      replyPolicy: r.reply_policy,
      designatedAgentId: r.designated_agent_id,
      maxAgentRounds: Number(r.max_agent_rounds),
      customRules: r.custom_rules,
    },
    last:
      r.last_seq === null || r.last_from === null || r.last_sent_at === null
        ? null
        : {
            seq: Number(r.last_seq),
            from: r.last_from,
            body: r.last_body,
            sentAt: date(r.last_sent_at),
            redacted: r.last_redacted === true,
          },
    unread: r.unread === null ? null : Number(r.unread),
    mentionsUnread: r.mentions_unread === null ? null : Number(r.mentions_unread),
    pinned: r.pinned,
  };
}

/** The §9.3 order key: band, activity (last message, else created_at / the agent's joined_at), project, id. */
export function listKeyOf(row: KeyRow): ListKey {
  const activity = row.last?.sentAt ?? (row.kind === "group" ? row.createdAt : (row.agentJoinedAt ?? row.createdAt));
  return {
    band: bandOf({ pinned: row.pinned, unread: row.unread }),
    activity: activity.toISOString(),
    project: projectFullName(row.projectOwner, row.projectSlug),
    id: row.id,
  };
}

export interface ParticipantRow {
  conversationKey: string;
  memberId: string;
  kind: "human" | "agent";
  joinedAt: Date;
  meatProxyChat: boolean | null;
  handle: string;
  /** Human: display name; agent: null. */
  displayName: string | null;
  lead: boolean;
  hands: boolean;
  note: string | null;
  ownerId: string | null;
  ownerHandle: string | null;
  /** A terminal session (DESIGN §4e): its person; null for any other member. */
  session?: { person: { id: string; name: string } } | null;
  /** An agent of another Bay placed here (DESIGN §4c): its home Bay, sponsor, floor and wake; else null. */
  placement?: {
    homeBay: string;
    sponsor: { id: string; name: string };
    history: "from_placement" | "shared";
    wake: "anyone" | "sponsor";
  } | null;
  /** An agent's last memory reading (DESIGN §4b context rings; domain ringOf decides if it shows). */
  context?: {
    percent: number | null;
    source: string | null;
    runtime: string | null;
    reportedAt: Date | null;
    size: number | null;
    autoCompactAt: number | null;
    compactions: number;
  };
}

type RawParticipantRow = {
  conversation_id: string;
  member_id: string;
  member_kind: "human" | "agent";
  joined_at: Date | string;
  meat_proxy_chat: boolean | null;
  human_handle: string | null;
  display_name: string | null;
  meat_proxy_lead: boolean | null;
  meat_proxy_hands: boolean | null;
  meat_proxy_note: string | null;
  agent_handle: string | null;
  owner_id: string | null;
  owner_handle: string | null;
  agent_kind: string | null;
  ctx_percent: number | null;
  ctx_source: string | null;
  ctx_runtime: string | null;
  ctx_reported_at: Date | string | null;
  ctx_size: number | string | null;
  ctx_auto_compact_at: number | string | null;
  ctx_compactions: number | null;
  owner_bay_id: string | null;
  owner_bay: string | null;
  owner_name: string | null;
  project_bay_id: string;
  joined_seq: number;
  history_floor: number | null;
  wake: string | null;
};

const PARTICIPANTS_SQL = `
SELECT p.conversation_id, p.member_id, p.member_kind, p.joined_at, p.meat_proxy_chat,
       h.handle AS human_handle, h.display_name, h.meat_proxy_lead, h.meat_proxy_hands, h.meat_proxy_note,
       a.handle AS agent_handle, a.owner_id, oh.handle AS owner_handle, a.kind AS agent_kind,
       ac.percent AS ctx_percent, ac.source AS ctx_source, ac.runtime AS ctx_runtime, ac.reported_at AS ctx_reported_at,
       ac.size AS ctx_size, ac.auto_compact_at AS ctx_auto_compact_at, ac.compactions AS ctx_compactions,
       oh.bay_id AS owner_bay_id, ob.handle AS owner_bay, oh.display_name AS owner_name,
       pr.bay_id AS project_bay_id, p.joined_seq, p.history_floor, p.wake
FROM participations p
JOIN projects pr ON pr.id = p.project_id
LEFT JOIN humans h ON h.id = p.member_id
LEFT JOIN agents a ON a.id = p.member_id
LEFT JOIN humans oh ON oh.id = a.owner_id
LEFT JOIN bays ob ON ob.id = oh.bay_id
LEFT JOIN agent_context ac ON ac.agent_id = p.member_id
WHERE p.conversation_id = ANY($1::text[]) AND p.left_at IS NULL
ORDER BY p.joined_at, p.id`;

/** One statement: the current participants of the given conversations, in the order they joined. */
export async function readParticipants(
  db: Db | Tx | RawQueryable,
  conversationKeys: string[],
): Promise<Map<string, ParticipantRow[]>> {
  const byConversation = new Map<string, ParticipantRow[]>(conversationKeys.map((k) => [k, []]));
  if (conversationKeys.length === 0) return byConversation;
  const rows = await db.$queryRawUnsafe<RawParticipantRow[]>(PARTICIPANTS_SQL, conversationKeys);
  for (const r of rows) {
    byConversation.get(r.conversation_id)?.push({
      conversationKey: r.conversation_id,
      memberId: r.member_id,
      kind: r.member_kind,
      joinedAt: date(r.joined_at),
      meatProxyChat: r.meat_proxy_chat,
      handle: (r.member_kind === "agent" ? r.agent_handle : r.human_handle) ?? r.member_id,
      displayName: r.display_name,
      lead: r.meat_proxy_lead === true,
      hands: r.meat_proxy_hands === true,
      note: r.meat_proxy_note,
      ownerId: r.owner_id,
      ownerHandle: r.owner_handle,
      // DESIGN §4e: a terminal session of its person (shown like an agent, with a session badge).
      session: r.agent_kind === "session" ? { person: { id: r.owner_id ?? "", name: r.owner_name ?? "" } } : null,
      // v1.14 B-298: set from the placement and the Bays, never from anything the agent says.
      placement:
        r.member_kind === "agent" && r.owner_bay_id !== null && r.owner_bay_id !== r.project_bay_id
          ? {
              homeBay: r.owner_bay ?? "",
              sponsor: { id: r.owner_id ?? "", name: r.owner_name ?? "" },
              history:
                r.history_floor !== null && Number(r.history_floor) < Number(r.joined_seq)
                  ? "shared"
                  : "from_placement",
              wake: r.wake === "sponsor" ? "sponsor" : "anyone",
            }
          : null,
      context: {
        percent: r.ctx_percent === null ? null : Number(r.ctx_percent),
        source: r.ctx_source,
        runtime: r.ctx_runtime,
        reportedAt: r.ctx_reported_at === null ? null : date(r.ctx_reported_at),
        size: r.ctx_size === null ? null : Number(r.ctx_size),
        autoCompactAt: r.ctx_auto_compact_at === null ? null : Number(r.ctx_auto_compact_at),
        compactions: Number(r.ctx_compactions ?? 0),
      },
    });
  }
  return byConversation;
}

/** Observers: owners of agent participants who are not participants themselves (§9.2). */
export function observersOf(participants: ParticipantRow[]): string[] {
  const ids = new Set(participants.map((p) => p.memberId));
  return [...new Set(participants.filter((p) => p.kind === "agent" && p.ownerId).map((p) => p.ownerId as string))]
    .filter((id) => !ids.has(id))
    .sort();
}

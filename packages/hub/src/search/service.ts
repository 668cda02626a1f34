import {
  type AgentSearchOutput,
  decodeSearchCursor,
  encodeSearchCursor,
  foldText,
  hasTerms,
  highlightsOf,
  HubError,
  type ParsedSearch,
  parseSearch,
  type SearchPage,
  type SearchPosition,
  type SearchQuery,
  SYSTEM_SENDER,
} from "@maity/domain";
import { CUSTOM_PLAN, type Database, type Db, type SqlRunner } from "@maity/db";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { ACCESS_SQL } from "../access/visibility.ts";
import { findProject } from "../access/projects.ts";
import { rawOf } from "../raw.ts";
import { agentMessageSelect, renderForAgent } from "../messages/agentView.ts";
import { withAgentMedia, withMedia } from "../messages/media.ts";
import { messageSelect, renderMessage } from "../messages/render.ts";

// Message search (DESIGN §4d, docs/search.md): one statement finds a page of matches among what
// the caller may read right now — its windows, an observer's window, a visitor's floor, never a
// redacted message — so paging never skips or leaks; the messages are then rendered as every
// other read renders them. What a query means is domain/search.ts.

/** Where the search looks: across the caller's projects, or one project, or one conversation. */
interface Scope {
  projectId: string | null;
  /** A people's conversation id (cnv-…/agt-…). */
  conversationId: string | null;
  /** The agent API's conversation id (the internal key). */
  conversationKey: string | null;
  /** A member id (people's `from=`). */
  fromId: string | null;
  after: string | null;
  before: string | null;
}

type Hit = {
  seq: number;
  key: string;
  public_id: string;
  kind: "direct" | "group";
  title: string | null;
  owner: string;
  slug: string;
  project_name: string;
  rank: number | string;
};

/** LIKE's own characters in a needle, escaped (the default escape is the backslash). */
const likeNeedle = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** Scripts without spaces between words (migration `_search`'s maity_unspaced, the same ranges). */
const UNSPACED =
  /[\u0e00-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;

/**
 * The words and phrases as one tsquery (null without any), its operands built by maity_lexeme.
 * `weighted: false` (the probe) drops the weight A: a superset the GIN index answers without
 * reading each row again.
 */
function tsqueryOf(q: ParsedSearch, param: (value: unknown) => string, weighted = true): string | null {
  const a = weighted ? "A" : "";
  const operands: string[] = [];
  for (const w of q.words) {
    const word = param(w.text);
    const suffix = w.prefix ? `:*${a}` : a ? `:${a}` : "";
    // Its English stem (any weight), or the word itself unstemmed (weight A; the last one as a prefix).
    operands.push(
      `(to_tsquery('english'::regconfig, maity_lexeme(${word})) || ` +
        `to_tsquery('simple'::regconfig, maity_lexeme(${word})${suffix ? ` || '${suffix}'` : ""}))`,
    );
  }
  // A quoted operand of several words is a phrase: adjacent, in order, unstemmed.
  for (const phrase of q.phrases)
    operands.push(`to_tsquery('simple'::regconfig, maity_lexeme(${param(phrase.join(" "))})${a ? ` || ':${a}'` : ""})`);
  return operands.length > 0 ? `(${operands.join(" && ")})` : null;
}

/** A query's words match this many messages hub-wide at most before its search walks chat by chat. */
export const SPARSE_MATCHES = 2000;

/**
 * How many messages of the whole hub the words match, counted up to SPARSE_MATCHES: one probe of
 * the GIN index. It decides no visibility, only which way the statement finds its page.
 */
function probeOf(q: ParsedSearch, cap = SPARSE_MATCHES): { text: string; params: unknown[] } | null {
  const params: unknown[] = [];
  const tsquery = tsqueryOf(
    q,
    (value) => {
      params.push(value);
      return `$${params.length}`;
    },
    false,
  );
  if (!tsquery) return null;
  return {
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM events e
      WHERE e.search_vector IS NOT NULL AND e.search_vector @@ ${tsquery} LIMIT ${cap}) m`,
    params,
  };
}

/**
 * The statement: the caller's visible conversations (ACCESS_SQL: $1 caller, $2 kind, $3 project,
 * $4 observed, $5 conversation id, $7 conversation key; $6 is the page size + 1 here), their
 * messages inside the window, and the query's conditions — one statement, so a page is never
 * filtered after the fact. Two ways to the same page, chosen by how common the words are:
 * - sparse (the words match few messages hub-wide): those matches from the GIN index, joined to
 *   the visible chats, newest first;
 * - dense (common words, or no words): chat by chat, each chat's newest matches by its own index
 *   (at most a page each), then the newest of those — bounded by the page, not by the history.
 */
function statement(
  q: ParsedSearch,
  /** The members each from:@handle names (none: nothing matches). */
  from: string[][],
  scope: Scope,
  sort: "newest" | "relevance",
  at: SearchPosition | null,
  sparse: boolean,
) {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length + 7}`;
  };
  /** Conditions on the message alone, and on its chat (in:). */
  const onEvent: string[] = ["e.kind = 'message'", "NOT e.redacted", `e.from_id <> '${SYSTEM_SENDER}'`];
  const onChat: string[] = [];
  const tsquery = tsqueryOf(q, param);
  // Chat by chat, the words are a filter on each chat's own index walk: written so that no
  // planner (PGlite's has no statistics) probes the GIN index once per chat instead.
  if (tsquery)
    onEvent.push(
      "e.search_vector IS NOT NULL",
      sparse ? `e.search_vector @@ ${tsquery}` : `coalesce(e.search_vector, ''::tsvector) @@ ${tsquery}`,
    );
  for (const s of q.substrings) {
    // Unspaced scripts: the trigram index over those messages only; emoji and symbols: a scan
    // of the visible chats (ILIKE folds case; they have no accents to fold).
    if (UNSPACED.test(s)) onEvent.push("maity_unspaced(e.body)");
    onEvent.push(`e.body ILIKE ${param(likeNeedle(s))}`);
  }
  // The writer is a filter, never the index walked: a planner without statistics (PGlite) would
  // otherwise read every message of the writer, in every chat (0.5 s at 100,000 messages).
  for (const ids of from) onEvent.push(`(e.from_id || '') = ANY(${param(ids)}::text[])`);
  if (scope.fromId) onEvent.push(`(e.from_id || '') = ${param(scope.fromId)}`);
  for (const chat of q.in) {
    if (chat.startsWith("@")) onChat.push(`c.kind = 'direct' AND lower(da.handle) = lower(${param(chat.slice(1))})`);
    else onChat.push(`strpos(maity_fold(coalesce(c.title, '')), maity_fold(${param(chat)})) > 0`);
  }
  for (const has of new Set(q.has)) {
    if (has === "file") onEvent.push("jsonb_typeof(e.attachments) = 'array' AND jsonb_array_length(e.attachments) > 0");
    if (has === "poll") onEvent.push("e.card ->> 'type' = 'card.poll'");
    if (has === "card") onEvent.push("jsonb_typeof(e.card) = 'object'");
  }
  // Days in UTC: after: from that day on, before: up to that day (both bounds may come twice).
  for (const day of [q.after, scope.after]) if (day) onEvent.push(`e.sent_at >= ${param(day)}::timestamp`);
  for (const day of [q.before, scope.before]) if (day) onEvent.push(`e.sent_at < ${param(day)}::timestamp`);
  // ts_rank's real, as a whole number: a cursor position compares exactly (×10⁹, ranks stay < 1).
  // Only a relevance search computes it: newest first never reads a vector twice.
  const rank =
    sort === "relevance" && tsquery ? `(ts_rank(e.search_vector, ${tsquery}) * 1000000000)::bigint` : "0::bigint";
  if (at?.sort === "newest") onEvent.push(`e.seq < ${param(at.seq)}`);
  if (at?.sort === "relevance") onEvent.push(`(${rank}, e.seq) < (${param(at.rank)}::bigint, ${param(at.seq)}::int)`);
  const order = sort === "relevance" ? "rank DESC, seq DESC" : "seq DESC";
  // Inside the window (a late joiner finds nothing from before its join) and a visitor's floor.
  const floor = "GREATEST(v.window_seq, COALESCE(v.history_floor, 0))";
  const chats =
    onChat.length > 0 ? "JOIN conversations c ON c.id = v.id LEFT JOIN agents da ON da.id = c.agent_id" : "";
  const chatWhere = onChat.length > 0 ? `WHERE ${onChat.join(" AND ")}` : "";
  const hits = sparse
    ? `SELECT m.seq, m.conversation_id, m.rank
  -- OFFSET 0 keeps the matches a set of their own: found by the GIN index, not by walking the log.
  FROM (SELECT e.seq, e.conversation_id, ${rank} AS rank FROM events e
        WHERE ${onEvent.join("\n          AND ")} OFFSET 0) m
  JOIN visible v ON v.id = m.conversation_id AND m.seq > ${floor}
  ${chats}
  ${chatWhere}
  ORDER BY ${order} LIMIT $6`
    : `SELECT m.seq, m.conversation_id, m.rank
  FROM visible v
  ${chats}
  CROSS JOIN LATERAL (
    SELECT e.seq, e.conversation_id, ${rank} AS rank FROM events e
    WHERE e.conversation_id = v.id AND e.seq > ${floor}
      AND ${onEvent.join("\n      AND ")}
    ORDER BY ${order} LIMIT $6) m
  ${chatWhere}
  ORDER BY ${order} LIMIT $6`;
  // The page first, then what each of its rows is shown with (joined for at most limit+1 rows).
  // Planned for its words every time: a generic plan cannot know a common word from a rare one.
  const text = `${CUSTOM_PLAN}${ACCESS_SQL},
hits AS (
  ${hits}
)
SELECT h.seq, h.rank, c.id AS key, c.public_id, c.kind, COALESCE(c.title, da.handle) AS title,
       b.handle AS owner, pr.slug, pr.name AS project_name
FROM hits h
JOIN conversations c ON c.id = h.conversation_id
JOIN projects pr ON pr.id = c.project_id
JOIN bays b ON b.id = pr.bay_id
LEFT JOIN agents da ON da.id = c.agent_id
ORDER BY ${order.replace("seq", "h.seq").replace("rank", "h.rank")}`;
  return { text, params };
}

export function searchService(db: Db, sql: SqlRunner, engine: Database["engine"], sparseMatches = SPARSE_MATCHES) {
  /** One page of hits, the query parsed and the cursor checked (invalid names its field). */
  async function find(
    caller: Caller,
    raw: string,
    scope: Scope,
    sort: "newest" | "relevance",
    cursor: string | null,
    limit: number,
  ) {
    const parsed = parseSearch(raw);
    if (!parsed.ok) throw HubError.invalid({ q: parsed.error }, `q: ${parsed.error}`);
    const at = cursor === null ? null : decodeSearchCursor(cursor, sort);
    if (cursor !== null && at === null) throw HubError.invalid({ cursor: "not a cursor of this search" });
    const q = parsed.query;
    const probe = sparseMatches > 0 ? probeOf(q, sparseMatches) : null;
    const sparse =
      probe !== null && Number((await sql.query<{ n: number }>(probe.text, probe.params))[0]?.n) < sparseMatches;
    const { text, params } = statement(q, await membersOf(q.from), scope, sort, at, sparse);
    const all = [
      caller.id,
      caller.kind,
      scope.projectId,
      caller.kind === "human",
      scope.conversationId,
      limit + 1,
      scope.conversationKey,
      ...params,
    ];
    // PGlite keeps no statistics (no autovacuum): it would join the matches to the visible chats
    // row by row against each other; a hash join is what PostgreSQL picks with its statistics.
    const hits =
      sparse && engine === "pglite"
        ? await sql.transaction(async (tx) => {
            await tx.exec("SET LOCAL enable_nestloop = off");
            return tx.query<Hit>(text, all);
          })
        : await sql.query<Hit>(text, all);
    const page = hits.slice(0, limit);
    const last = page.at(-1);
    const next =
      hits.length > limit && last
        ? encodeSearchCursor(
            sort === "newest"
              ? { sort, seq: Number(last.seq) }
              : { sort, rank: Number(last.rank), seq: Number(last.seq) },
          )
        : null;
    return { q, page, next };
  }

  /** The English stems of the query's words, as the engine makes them (highlights mark stemmed matches). */
  async function stemsOf(q: ParsedSearch): Promise<Map<string, string>> {
    if (q.words.length === 0) return new Map();
    const rows = await sql.query<{ word: string; stem: string | null }>(
      "SELECT w AS word, (ts_lexize('english_stem', maity_fold(w)))[1] AS stem FROM unnest($1::text[]) AS w",
      [q.words.map((w) => w.text)],
    );
    return new Map(rows.filter((r) => r.stem).map((r) => [foldText(r.word), r.stem as string]));
  }

  /** A project named `owner/slug` (any Bay); unknown: a project no one is in, so nothing matches. */
  async function projectOf(ref: string | undefined): Promise<string | null> {
    if (!ref) return null;
    const [owner = "", slug = ""] = ref.toLowerCase().split("/");
    return (await findProject(rawOf(sql), owner, slug))?.id ?? "-";
  }

  /** The members (people and agents) each from:@handle names, one statement for all of them. */
  async function membersOf(handles: string[]): Promise<string[][]> {
    if (handles.length === 0) return [];
    const rows = await sql.query<{ handle: string; id: string }>(
      `SELECT lower(handle) AS handle, id FROM humans WHERE lower(handle) = ANY($1::text[])
       UNION ALL SELECT lower(handle), id FROM agents WHERE lower(handle) = ANY($1::text[])`,
      [handles.map((h) => h.toLowerCase())],
    );
    return handles.map((h) => rows.filter((r) => r.handle === h.toLowerCase()).map((r) => r.id));
  }

  return {
    /** GET /api/search (DESIGN §4d): newest first, or by relevance; highlights in code points. */
    async people(caller: Caller, input: SearchQuery): Promise<SearchPage> {
      const scope: Scope = {
        projectId: await projectOf(input.project),
        conversationId: input.conversation ?? null,
        conversationKey: null,
        fromId: input.from ?? null,
        after: input.after ?? null,
        before: input.before ?? null,
      };
      const { q, page, next } = await find(caller, input.q, scope, input.sort, input.cursor ?? null, input.limit);
      if (page.length === 0) return { items: [], next_cursor: null };
      const [rows, stems] = await Promise.all([
        db.event.findMany({ where: { seq: { in: page.map((h) => Number(h.seq)) } }, select: messageSelect }),
        hasTerms(q) ? stemsOf(q) : Promise.resolve(new Map<string, string>()),
      ]);
      const bySeq = new Map(rows.map((r) => [r.seq, r]));
      // Never redacted here, so the redaction's reason (shown to admins) never comes up.
      const reader = { id: caller.id, admin: false };
      const messages = await withMedia(
        db,
        caller.id,
        page.flatMap((h) => {
          const row = bySeq.get(Number(h.seq));
          return row ? [renderMessage(row, reader)] : [];
        }),
      );
      const rendered = new Map(messages.map((m) => [m.seq, m]));
      return {
        items: page.flatMap((h) => {
          const message = rendered.get(Number(h.seq));
          if (!message) return [];
          return [
            {
              project: { owner: h.owner, slug: h.slug, name: h.project_name },
              conversation_id: h.public_id,
              conversation: { kind: h.kind, title: h.title ?? "" },
              message,
              highlights: hasTerms(q) ? highlightsOf(message.body ?? "", q, stems) : [],
            },
          ];
        }),
        next_cursor: next,
      };
    },

    /** GET /api/agent-api/search (DESIGN §4d): the agent's own rooms, newest first. */
    async agent(
      caller: AgentCaller,
      input: { q: string; conversationId?: string | undefined; cursor?: string | undefined; limit: number },
    ): Promise<AgentSearchOutput> {
      const scope: Scope = {
        projectId: null,
        conversationId: null,
        conversationKey: input.conversationId ?? null,
        fromId: null,
        after: null,
        before: null,
      };
      const { q, page, next } = await find(caller, input.q, scope, "newest", input.cursor ?? null, input.limit);
      if (page.length === 0) return { results: [], nextCursor: null };
      const [rows, stems] = await Promise.all([
        db.event.findMany({ where: { seq: { in: page.map((h) => Number(h.seq)) } }, select: agentMessageSelect }),
        hasTerms(q) ? stemsOf(q) : Promise.resolve(new Map<string, string>()),
      ]);
      const order = new Map(page.map((h, i) => [Number(h.seq), i]));
      rows.sort((a, b) => (order.get(a.seq) ?? 0) - (order.get(b.seq) ?? 0));
      const rendered = await renderForAgent(db, caller.id, rows);
      const messages = await withAgentMedia(
        db,
        caller.id,
        rendered.map((r) => r.message),
      );
      return {
        results: messages.map((message, i) => ({
          conversationId: rendered[i]?.row.conversation?.id ?? "",
          // A result is data: it never asks for a reply, whatever its routing was (DESIGN §4d).
          message: { ...message, shouldRespond: false },
          highlights: hasTerms(q) ? highlightsOf(message.content, q, stems) : [],
        })),
        nextCursor: next,
      };
    },
  };
}

export type SearchService = ReturnType<typeof searchService>;

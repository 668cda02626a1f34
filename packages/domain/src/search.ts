import { z } from "zod";
import { agentMessageSchema } from "./agentApi.ts";
import { INT_COLUMN_MAX, queryInt } from "./integers.ts";
import { messageSchema } from "./schemas.ts";
import { text } from "./text.ts";

// Message search (DESIGN §4d): what a query means, decided here once, and where its matches sit in
// a body (highlights, in code points). The hub's SQL (hub/search) turns a parsed query into the
// one statement's conditions; the index itself is the migration `_search` (docs/search.md).
//
// How the words map onto the engine (decided, docs/search.md):
// - A word of letters or digits is a full-text term: it matches its English stem (so "deciding"
//   finds "decided") or, exactly, the word itself (so stop words like "when" still match).
// - The query's last word also matches as a prefix of a word ("pric" finds "pricing"), so results
//   follow the typing.
// - A "quoted phrase" matches its words, in order, adjacent, unstemmed (punctuation between them
//   does not matter).
// - A word in a script written without spaces (Chinese, Japanese, Korean, Thai…) or without any
//   letter (an emoji) matches as a substring of the text.
// - Case and accents never matter (`unaccent`, lower case), on both sides.

export const SEARCH_QUERY_MAX = 500;
/** Terms (words, phrases, substrings) one query may carry: each is a condition of the statement. */
export const SEARCH_TERMS_MAX = 16;
export const SEARCH_HAS = ["file", "poll", "card"] as const;
export type SearchHas = (typeof SEARCH_HAS)[number];

export interface SearchWord {
  /** The word as typed (the engine folds case and accents itself). */
  text: string;
  /** The query's last word: it also matches the start of a longer word. */
  prefix: boolean;
}

export interface ParsedSearch {
  words: SearchWord[];
  /** Quoted phrases, each as its words (letters and digits). */
  phrases: string[][];
  /** Text matched inside words: scripts written without spaces, emoji and symbols. */
  substrings: string[];
  /** `from:@handle` (without the @). */
  from: string[];
  /** `in:<chat>`: a part of a group chat's title, or `@handle` of a direct chat's agent. */
  in: string[];
  has: SearchHas[];
  /** `after:YYYY-MM-DD` (from that day on, UTC) and `before:YYYY-MM-DD` (before that day). */
  after: string | null;
  before: string | null;
}

export type SearchParse = { ok: true; query: ParsedSearch } | { ok: false; error: string };

/** Letters (with their marks) and digits: what the engine's parser keeps as a word. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** A part is a word only with a letter or a digit (marks alone fold to nothing). */
const HAS_WORD = /[\p{L}\p{N}]/u;
/** A part without the punctuation around it: "pricing," → "pricing", "(v1.2)" → "v1.2". */
const trimEdges = (s: string): string => s.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu, "");
/**
 * Scripts written without spaces between words: the engine's parser would keep a whole sentence
 * as one word, so a word of them matches as a substring (with pg_trgm's index where it helps).
 */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day `YYYY-MM-DD` that exists, or null. */
export function dayOf(value: string): string | null {
  // Year 0 is JavaScript's, not PostgreSQL's.
  if (!DAY.test(value) || value < "0001-01-01") return null;
  const d = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value ? null : value;
}

/** The query's pieces: quoted runs and bare runs, each with whether an `op:` started it. */
function tokens(q: string): { op: string | null; value: string; quoted: boolean }[] {
  const out: { op: string | null; value: string; quoted: boolean }[] = [];
  let i = 0;
  const points = Array.from(q);
  while (i < points.length) {
    while (i < points.length && /\s/u.test(points[i] as string)) i++;
    if (i >= points.length) break;
    let op: string | null = null;
    // `op:` — a known operator name followed by a colon (anything else is text).
    const rest = points.slice(i, i + 7).join("");
    const m = /^(from|in|has|before|after):/i.exec(rest);
    if (m) {
      op = (m[1] as string).toLowerCase();
      i += m[0].length;
    }
    if (points[i] === '"') {
      const end = points.indexOf('"', i + 1);
      const stop = end === -1 ? points.length : end;
      out.push({ op, value: points.slice(i + 1, stop).join(""), quoted: true });
      i = stop + 1;
      continue;
    }
    const start = i;
    while (i < points.length && !/\s/u.test(points[i] as string)) i++;
    out.push({ op, value: points.slice(start, i).join(""), quoted: false });
  }
  return out;
}

/** Parses `q` (DESIGN §4d): words, "phrases", from:@handle, in:<chat>, has:file|poll|card, before:/after:. */
export function parseSearch(q: string): SearchParse {
  const query: ParsedSearch = {
    words: [],
    phrases: [],
    substrings: [],
    from: [],
    in: [],
    has: [],
    after: null,
    before: null,
  };
  const addText = (value: string, quoted: boolean) => {
    const parts = value.split(/\s+/u).filter((p) => p !== "");
    if (parts.length === 0) return;
    if (quoted) {
      // A quote of words is a phrase (one word: that word exactly); anything else in quotes is text.
      const words = parts.map(trimEdges);
      if (words.every((w) => HAS_WORD.test(w) && !UNSPACED.test(w))) query.phrases.push(words);
      else query.substrings.push(value.trim());
      return;
    }
    for (const part of parts) {
      // Without a letter or digit (an emoji, with its variation selector): the text itself.
      if (!HAS_WORD.test(part)) query.substrings.push(part);
      // A script without spaces: inside words (its edges' punctuation aside).
      else if (UNSPACED.test(part)) query.substrings.push(trimEdges(part));
      // A word as the engine's parser reads it: "example.com", "ann@example.com", "1.2.3", "can't"
      // stay whole, so they meet the same tokens the index holds.
      else query.words.push({ text: trimEdges(part), prefix: false });
    }
  };
  for (const t of tokens(q)) {
    const value = t.value.trim();
    switch (t.op) {
      case "from": {
        const handle = value.replace(/^@/, "");
        if (handle === "") return { ok: false, error: "from: needs a handle (from:@ann)" };
        query.from.push(handle);
        break;
      }
      case "in":
        if (value === "") return { ok: false, error: "in: needs a chat (in:release or in:@agent)" };
        query.in.push(value);
        break;
      case "has": {
        const has = value.toLowerCase();
        if (!(SEARCH_HAS as readonly string[]).includes(has))
          return { ok: false, error: `has: is one of ${SEARCH_HAS.join(", ")}` };
        query.has.push(has as SearchHas);
        break;
      }
      case "before":
      case "after": {
        const day = dayOf(value);
        if (!day) return { ok: false, error: `${t.op}: needs a day as YYYY-MM-DD` };
        query[t.op] = day;
        break;
      }
      default:
        addText(value, t.quoted);
    }
  }
  // The last word typed matches as a prefix too (results follow the typing) — from two characters:
  // one would match most of the index at every keystroke.
  const last = query.words.at(-1);
  if (last && Array.from(last.text).length >= 2) last.prefix = true;
  const terms = query.words.length + query.phrases.length + query.substrings.length;
  if (terms > SEARCH_TERMS_MAX) return { ok: false, error: `at most ${SEARCH_TERMS_MAX} words` };
  const filters = query.from.length + query.in.length + query.has.length;
  if (terms === 0 && filters === 0 && !query.after && !query.before) return { ok: false, error: "required" };
  return { ok: true, query };
}

/** The query has text to match (not only filters): only then is there anything to highlight or rank. */
export const hasTerms = (q: ParsedSearch): boolean => q.words.length + q.phrases.length + q.substrings.length > 0;

// ---- Highlights -------------------------------------------------------------------------------

/** Folds that NFD does not decompose; the engine's `unaccent` makes the same (a subset of its rules). */
const FOLD_EXTRA: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
};

/** One code point, case- and accent-folded (may be empty or several code points). */
export function foldPoint(point: string): string {
  const lower = point.toLowerCase();
  const extra = FOLD_EXTRA[lower];
  if (extra) return extra;
  // Only the combining diacritics unaccent removes; other scripts' marks (Devanagari vowels) stay.
  return lower
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC");
}

/** Case- and accent-folded text (what a word or substring is compared as). */
export const foldText = (s: string): string => Array.from(s, foldPoint).join("");

export interface Highlight {
  /** Offset in code points of the message's body. */
  start: number;
  /** Length in code points. */
  length: number;
}

/** The body folded point by point, each folded code point remembering the original it came from. */
function folded(body: string): { points: string[]; origin: number[] } {
  const points: string[] = [];
  const origin: number[] = [];
  Array.from(body).forEach((p, i) => {
    for (const f of Array.from(foldPoint(p))) {
      points.push(f);
      origin.push(i);
    }
  });
  return { points, origin };
}

/** Word runs of the folded body: [start, end) in folded points, and the folded word. */
function wordsOf(points: string[]): { start: number; end: number; word: string }[] {
  const out: { start: number; end: number; word: string }[] = [];
  let i = 0;
  while (i < points.length) {
    if (!WORD_CHAR.test(points[i] as string)) {
      i++;
      continue;
    }
    const start = i;
    while (i < points.length && WORD_CHAR.test(points[i] as string)) i++;
    out.push({ start, end: i, word: points.slice(start, i).join("") });
  }
  return out;
}

/**
 * Where the query's terms sit in `body`, in code points, sorted and merged. `stems` maps a word
 * (folded) to its English stem as the engine computed it ("deciding" → "decid"); a stop word has
 * none. Matching is the engine's; this only marks, so a mark may miss an exotic match, never
 * invent a result.
 */
export function highlightsOf(
  body: string,
  q: ParsedSearch,
  stems: ReadonlyMap<string, string> = new Map(),
): Highlight[] {
  const { points, origin } = folded(body);
  const words = wordsOf(points);
  const spans: [number, number][] = [];
  const substring = (needleText: string) => {
    const needle = Array.from(foldText(needleText));
    if (needle.length === 0) return;
    for (let i = 0; i + needle.length <= points.length; i++) {
      if (needle.every((p, k) => points[i + k] === p)) spans.push([i, i + needle.length]);
    }
  };
  for (const w of q.words) {
    const f = foldText(w.text);
    // A word with punctuation inside ("example.com") is marked where its text sits.
    if (!Array.from(f).every((p) => WORD_CHAR.test(p))) {
      substring(w.text);
      continue;
    }
    const stem = stems.get(f);
    for (const bw of words) {
      if (
        bw.word === f ||
        (w.prefix && bw.word.startsWith(f)) ||
        (stem !== undefined && stem.length > 1 && bw.word.startsWith(stem))
      )
        spans.push([bw.start, bw.end]);
    }
  }
  for (const phrase of q.phrases) {
    const fw = phrase.map(foldText);
    if (!fw.every((f) => Array.from(f).every((p) => WORD_CHAR.test(p)))) {
      for (const part of phrase) substring(part);
      continue;
    }
    for (let i = 0; i + fw.length <= words.length; i++) {
      if (fw.every((f, k) => words[i + k]?.word === f))
        spans.push([(words[i] as { start: number }).start, (words[i + fw.length - 1] as { end: number }).end]);
    }
  }
  for (const s of q.substrings) substring(s);
  // Folded spans → original code points; overlapping or touching spans merge.
  const original = spans
    .map(([s, e]) => [origin[s] as number, (origin[e - 1] as number) + 1] as [number, number])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const span of original) {
    const last = merged.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged.map(([start, end]) => ({ start, length: end - start }));
}

// ---- Wire shapes ------------------------------------------------------------------------------

const day = z.string().refine((v) => dayOf(v) !== null, "a day as YYYY-MM-DD");
export const SEARCH_SORTS = ["newest", "relevance"] as const;

/** GET /api/search (DESIGN §4d): people's query. Filters here and operators inside `q` combine. */
export const searchQuery = z.strictObject({
  q: text("a search").max(SEARCH_QUERY_MAX, `at most ${SEARCH_QUERY_MAX} characters`),
  /** `owner/slug`: one project's chats. */
  project: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}\/[a-z0-9][a-z0-9-]{0,39}$/i, "owner/slug")
    .optional(),
  conversation: text("a conversation id").max(100, "at most 100 characters").optional(),
  /** A member id: messages this member wrote. */
  from: text("a member id").max(100, "at most 100 characters").optional(),
  before: day.optional(),
  after: day.optional(),
  sort: z.enum(SEARCH_SORTS).default("newest"),
  cursor: text("a cursor").max(200, "at most 200 characters").optional(),
  limit: queryInt(1, 100).default(20),
});
export type SearchQuery = z.output<typeof searchQuery>;

export const highlightSchema = z.object({ start: z.number().int(), length: z.number().int() });

export const searchResultSchema = z.object({
  project: z.object({ owner: z.string(), slug: z.string(), name: z.string() }),
  conversation_id: z.string(),
  /** The chat as the reader names it: a group's title, a direct chat's agent. */
  conversation: z.object({ kind: z.enum(["direct", "group"]), title: z.string() }),
  message: messageSchema,
  /** Where the match sits in `message.body`, in code points. */
  highlights: z.array(highlightSchema),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchPageSchema = z.object({
  items: z.array(searchResultSchema),
  next_cursor: z.string().nullable(),
});
export type SearchPage = z.infer<typeof searchPageSchema>;

/** GET /api/agent-api/search (DESIGN §4d): the same query language, within the agent's own rooms. */
export const agentSearchInput = z.strictObject({
  q: text("a search").max(SEARCH_QUERY_MAX, `at most ${SEARCH_QUERY_MAX} characters`),
  conversationId: text("a conversation id").max(100, "at most 100 characters").optional(),
  cursor: text("a cursor").max(200, "at most 200 characters").optional(),
  limit: queryInt(1, 50).default(20),
});

export const agentSearchOutput = z.object({
  results: z.array(
    z.object({
      conversationId: z.string(),
      message: agentMessageSchema,
      /** Where the match sits in `message.content`, in code points. */
      highlights: z.array(highlightSchema),
    }),
  ),
  nextCursor: z.string().nullable(),
});
export type AgentSearchOutput = z.infer<typeof agentSearchOutput>;

// ---- Cursors ----------------------------------------------------------------------------------

/** A position in the results: the last message's seq, and under relevance its rank too. */
export type SearchPosition = { sort: "newest"; seq: number } | { sort: "relevance"; rank: number; seq: number };

export function encodeSearchCursor(p: SearchPosition): string {
  return p.sort === "newest" ? `n${p.seq.toString(36)}` : `r${p.rank.toString(36)}.${p.seq.toString(36)}`;
}

/** The position a cursor names, or null when it is not one of ours (or of the other order). */
export function decodeSearchCursor(cursor: string, sort: "newest" | "relevance"): SearchPosition | null {
  const m = /^(?:n([0-9a-z]{1,7})|r([0-9a-z]{1,9})\.([0-9a-z]{1,7}))$/.exec(cursor);
  if (!m) return null;
  const n = (v: string | undefined) => Number.parseInt(v ?? "", 36);
  // A seq the column cannot hold is no position of ours.
  const seq = n(m[1] ?? m[3]);
  if (seq > INT_COLUMN_MAX) return null;
  if (sort === "newest" && m[1] !== undefined) return { sort, seq };
  if (sort === "relevance" && m[2] !== undefined) return { sort, rank: n(m[2]), seq };
  return null;
}

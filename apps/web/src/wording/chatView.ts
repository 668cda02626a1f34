import type { Band } from "@maity/domain";
import type { ContextRing, WakeReason } from "@maity/domain";

// How the dashboard words a chat: names instead of ids, messages grouped by author and
// day, short relative times, who reads along, and who the hub asked to answer. Pure, so the
// browser and the tests share one rule.

/** A member as the dashboard names it (projects.names, participants). */
export interface Named {
  member_id: string;
  kind: "human" | "agent";
  name: string;
  owner_id: string | null;
}

/** The name for an id; an id nobody named stays the id (it is all the reader knows). */
export const nameOf = (id: string, people: ReadonlyMap<string, Named>): string => people.get(id)?.name ?? id;

/** Two letters for an avatar: of an agent's handle (`owner/handle`), else of the first two words. */
export function initials(name: string): string {
  const base = name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : name;
  const words = base.split(/[\s\-_.]+/u).filter(Boolean);
  const letters =
    words.length >= 2
      ? [words[0], words[1]].map((w) => Array.from(w as string)[0])
      : Array.from(words[0] ?? "?").slice(0, 2);
  return letters.join("").toUpperCase();
}

const DAY_MS = 86_400_000;
const localDay = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;

/**
 * A list's time, short: "now" under a minute, "5 min", "3 h" today, "Yesterday", the weekday within
 * a week, "12 Nov" this year, "12 Nov 2025" before. `locale` and the clock are the caller's.
 */
export function relativeTime(iso: string, now: Date, locale = "en-GB"): string {
  const at = new Date(iso);
  const ms = now.getTime() - at.getTime();
  if (ms < 60_000) return "now";
  if (localDay(at) === localDay(now))
    return ms < 3_600_000 ? `${Math.floor(ms / 60_000)} min` : `${Math.floor(ms / 3_600_000)} h`;
  if (localDay(at) === localDay(new Date(now.getTime() - DAY_MS))) return "Yesterday";
  if (ms < 6 * DAY_MS) return at.toLocaleDateString(locale, { weekday: "short" });
  const sameYear = at.getFullYear() === now.getFullYear();
  return at.toLocaleDateString(locale, { day: "numeric", month: "short", ...(sameYear ? {} : { year: "numeric" }) });
}

export interface GroupableMessage {
  seq: number;
  from: string;
  sent_at: string;
}
export interface MessageRun<M extends GroupableMessage> {
  from: string;
  messages: M[];
}
export interface MessageDay<M extends GroupableMessage> {
  /** The local day, `YYYY-MM-DD`. */
  day: string;
  runs: MessageRun<M>[];
}

/**
 * Messages (ascending by seq) grouped by local day, and within a day into runs of one author's
 * consecutive messages no more than `gapMinutes` apart — as Slack and Element show them.
 */
export function groupMessages<M extends GroupableMessage>(messages: readonly M[], gapMinutes = 5): MessageDay<M>[] {
  const days: MessageDay<M>[] = [];
  for (const m of messages) {
    const day = localDay(new Date(m.sent_at));
    let current = days.at(-1);
    if (current?.day !== day) {
      current = { day, runs: [] };
      days.push(current);
    }
    const run = current.runs.at(-1);
    const last = run?.messages.at(-1);
    const close = last !== undefined && Date.parse(m.sent_at) - Date.parse(last.sent_at) <= gapMinutes * 60_000;
    if (run && run.from === m.from && close) run.messages.push(m);
    else current.runs.push({ from: m.from, messages: [m] });
  }
  return days;
}

/**
 * §9.2 observers in words: "Guest reads along as the owner of guest/agent-x". An observer reads a
 * chat because an agent it owns takes part; the agents are named from the participants.
 */
export function observersLine(
  observers: readonly string[],
  participants: readonly Named[],
  people: ReadonlyMap<string, Named>,
): string | null {
  if (observers.length === 0) return null;
  const parts = observers.map((id) => {
    const agents = participants.filter((p) => p.kind === "agent" && p.owner_id === id).map((p) => p.name);
    const who = nameOf(id, people);
    return agents.length ? `${who} reads along as the owner of ${listInWords(agents)}` : `${who} reads along`;
  });
  return parts.join("; ");
}

/** "a", "a and b", "a, b and c". */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Why the hub asked an agent to answer, or held it back, in a few words (004 §4). */
export const REASON_WORDS: Record<WakeReason, string> = {
  mentioned: "mentioned",
  named: "named without @",
  replied_to: "replied to",
  designated: "the designated agent",
  orchestrator: "the orchestrator",
  routed: "picked by the router",
  fallback: "the router's fallback",
  open: "open chat: every agent answers people",
  direct: "a direct message",
  round_cap: "round cap reached",
  not_addressed: "not addressed",
  own_message: "its own message",
  agent_author: "written by an agent",
  not_sponsor: "a visitor woken only by the person who brought it",
};

export interface RoutingChips {
  /** The agents asked to answer, with why. */
  asked: { agentId: string; name: string; why: string }[];
  /** Agents the round cap held back (the chat should say so, and who can lift it). */
  heldByCap: string[];
}

/** The chips under a message from its stored verdicts (messages.routing). */
export function routingChips(
  agents: readonly { agent_id: string; should_respond: boolean; reason: WakeReason }[],
  people: ReadonlyMap<string, Named>,
): RoutingChips {
  return {
    asked: agents
      .filter((a) => a.should_respond)
      .map((a) => ({ agentId: a.agent_id, name: nameOf(a.agent_id, people), why: REASON_WORDS[a.reason] })),
    heldByCap: agents
      .filter((a) => !a.should_respond && a.reason === "round_cap")
      .map((a) => nameOf(a.agent_id, people)),
  };
}

/**
 * The `@…` being typed at the caret, for the composer's autocompletion: the text after an `@` that
 * starts a word (as resolveMentions reads one) up to the caret, with no space in it; else null.
 */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf("@");
  if (at < 0) return null;
  const previous = before[at - 1];
  if (previous !== undefined && /[\p{L}\p{N}_]/u.test(previous)) return null; // an e-mail address, not a mention
  const query = before.slice(at + 1);
  if (/[\s@]/u.test(query) || query.length > 60) return null;
  return { start: at, query };
}

export interface MentionCandidate {
  member_id: string;
  handle: string;
  name: string;
  kind: "human" | "agent";
}

/**
 * Participants whose handle or name starts with the query (then contains it), agents first for
 * an agent-routing chat's sake, at most `limit`; the caller itself left out. Inserting one writes
 * `@handle ` (§9.2: mentions resolve to the chat's current participants).
 */
export function suggestMentions(
  query: string,
  candidates: readonly MentionCandidate[],
  self: string,
  limit = 8,
): MentionCandidate[] {
  const q = query.toLowerCase();
  const score = (c: MentionCandidate): number => {
    const handle = c.handle.toLowerCase();
    const name = c.name.toLowerCase();
    if (handle.startsWith(q) || name.startsWith(q)) return 0;
    if (handle.includes(q) || name.includes(q)) return 1;
    return 2;
  };
  return candidates
    .filter((c) => c.member_id !== self && score(c) < 2)
    .sort(
      (a, b) =>
        score(a) - score(b) ||
        (a.kind === b.kind ? 0 : a.kind === "agent" ? -1 : 1) ||
        a.handle.localeCompare(b.handle),
    )
    .slice(0, limit);
}

/** The composer's text with the mention at `start` completed to `@handle `, and where the caret goes. */
export function insertMention(
  text: string,
  caret: number,
  start: number,
  handle: string,
): { text: string; caret: number } {
  const inserted = `@${handle} `;
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}

/** A list item as far as the list's words need it (§9.3 items, both kinds). */
export interface ListedChat {
  kind: "direct" | "group";
  title: string | null;
  participants: readonly { member_id: string; kind: "human" | "agent"; handle: string; name?: string }[];
  last_message: { from: string; body: string | null; redacted: boolean } | null;
}

const participantName = (p: { handle: string; name?: string }): string => p.name ?? p.handle;

/**
 * §9.3: a direct conversation shows its agent's name; a group chat its title, or, untitled, its
 * participants' names (the hub names agents `owner/handle`; humans carry their handle).
 */
export function listTitle(item: ListedChat): string {
  if (item.kind === "direct") {
    const agent = item.participants.find((p) => p.kind === "agent");
    return agent ? participantName(agent) : "Direct conversation";
  }
  return item.title ?? listInWords(item.participants.map(participantName));
}

/**
 * The preview line of a list item. The hub already cuts the body at 200 code points (§9.1, §9.3:
 * "a cut body ends there") and sends a redaction as body: null; the list shows it on one line
 * (whitespace collapsed), says who wrote it ("You: …", or the sender's name in a group chat) and
 * says "Message removed" for a redaction, never an empty line.
 */
export function listPreview(
  item: ListedChat,
  readerId: string,
): { text: string; author: string | null; removed: boolean; empty: boolean } {
  const last = item.last_message;
  if (!last) return { text: "No messages yet", author: null, removed: false, empty: true };
  const sender = item.participants.find((p) => p.member_id === last.from);
  const author = last.from === readerId ? "You" : item.kind === "group" && sender ? participantName(sender) : null;
  if (last.redacted || last.body === null) return { text: "Message removed", author, removed: true, empty: false };
  return { text: last.body.replace(/\s+/gu, " ").trim(), author, removed: false, empty: false };
}

/** Lower case without accents, so "Ødegaard" is found by "odegaard" and "José" by "jose". */
const folded = (text: string): string =>
  text.normalize("NFD").replace(/\p{M}/gu, "").replace(/ø/giu, "o").toLowerCase();

/**
 * The list's search: every word of the query is found in the title (as listTitle gives it) or
 * in a participant's handle or name; an empty query finds everything.
 */
export function matchesListQuery(item: ListedChat, query: string): boolean {
  const words = folded(query).split(/\s+/u).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = folded([listTitle(item), ...item.participants.flatMap((p) => [p.handle, p.name ?? ""])].join("\n"));
  return words.every((w) => haystack.includes(w));
}

/** §9.3's four bands as the list's headings name them. */
export const BAND_WORDS: Record<Band, string> = {
  0: "Pinned, with new messages",
  1: "New messages",
  2: "Pinned",
  3: "Everything else",
};

/**
 * §9.3: where the "New messages" divider goes when a chat opens — before the first
 * message after the reader's read marker (`after`) that someone else wrote. The reader's own lines
 * are never new to it (posting moves its marker, §9.2); an observer has no marker (null: none).
 */
export function firstUnread(
  items: readonly { seq: number; from: string }[],
  after: number | null,
  me: string,
): number | null {
  if (after === null) return null;
  return items.find((m) => m.seq > after && m.from !== me)?.seq ?? null;
}

/** A quoted reply's excerpt: one line, whitespace collapsed, cut at a word near `max` characters. */
export function replyExcerpt(body: string | null, max = 80): string {
  if (body === null) return "Message removed";
  const line = body.replace(/\s+/gu, " ").trim();
  const points = Array.from(line);
  if (points.length <= max) return line;
  const cut = points.slice(0, max).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Whether the composer tells the hub its person is writing now — never for an empty
 * body, at most once every `interval` ms while typing (each call is a live event to the others).
 */
export function shouldSendTyping(body: string, now: number, lastSent: number | null, interval = 3_000): boolean {
  if (body.trim() === "") return false;
  return lastSent === null || now - lastSent >= interval;
}

/** A message's link (the "Copy link" action): the chat's route with `#m-<seq>`. */
export const messageLink = (owner: string, slug: string, id: string, seq: number): string =>
  `/p/${owner}/${slug}/c/${id}#m-${seq}`;

/** The seq a link's hash (`#m-<seq>`) names, or null. */
export function seqOfHash(hash: string): number | null {
  const m = /^#m-(\d{1,15})$/u.exec(hash);
  return m ? Number(m[1]) : null;
}

/**
 * The slice of loaded messages kept mounted (at most `max`, so a long chat stays smooth), after the
 * reader reaches one end of what is mounted. "up" mounts `step` earlier ones and lets go of the
 * newest beyond `max`; "down" the reverse. Indices into the loaded list, `end` exclusive.
 */
export function slideWindow(
  range: { start: number; end: number },
  total: number,
  direction: "up" | "down",
  step: number,
  max: number,
): { start: number; end: number } {
  if (direction === "up") {
    const start = Math.max(0, range.start - step);
    return { start, end: Math.min(range.end, start + max) };
  }
  const end = Math.min(total, range.end + step);
  return { start: Math.max(range.start, end - max), end };
}

/** The ring's tooltip: how full, how measured, by what, when, how far from compacting, tidies (DESIGN §4b). */
export function memoryTitle(ring: NonNullable<ContextRing>): string {
  const { percent, source, runtime, reported_at, auto_compact_percent, tidies } = ring;
  const how = source === "exact" ? "counted by" : "estimated by";
  const parts = [`Memory ${percent}% full, ${how} ${runtime}, reported ${new Date(reported_at).toLocaleString()}`];
  if (auto_compact_percent !== null) {
    const left = auto_compact_percent - percent;
    parts.push(
      left > 0
        ? `compacts by itself at ${auto_compact_percent}% (${left} points to go)`
        : `past the ${auto_compact_percent}% where it compacts by itself`,
    );
  }
  parts.push(
    tidies === 0 ? "no tidy this session" : `tidied ${tidies} ${tidies === 1 ? "time" : "times"} this session`,
  );
  return parts.join("; ");
}

import { AgentApiError } from "@maity/client";
import { attachmentLines, sizeText } from "@maity/client/text";
import type { AgentPoll, LibraryListing } from "@maity/domain";

export { attachmentLines, sizeText } from "@maity/client/text";

// How the CLI shows the room (004 §4–§5): one line per message, the routing marker appended, and
// the one-line refusals. Pure, so the exact text is unit-tested.

/** The fields of a message the line needs: both the REST shape and an /updates event's carry them. */
export interface ShownMessage {
  id: string;
  senderId: string;
  content: string;
  createdAt: string;
  sender: { name: string; role: string | null };
  mentions: string[];
  shouldRespond: boolean;
  /** Only the REST shape has it: a redacted message keeps its place with content "" (Maity §8.5). */
  deletedAt?: string | null;
  /** B-181: `attachments[]` with their signed URLs, when the message carries files. */
  metadata?: Record<string, unknown> | null;
}

export const SHOULD_RESPOND = "→ you should respond";
export const MENTIONED = "→ you were mentioned";

/**
 * B-071 B-094: never the agent's own messages (it must not answer itself) and never a soft-deleted
 * one (nothing is left to read).
 */
export const isShown = (message: ShownMessage, me: string): boolean =>
  message.senderId !== me && !message.deletedAt && message.content !== "";

/**
 * Message text is untrusted (§9): terminal control characters (ESC sequences could rewrite the
 * screen or fake a marker line) become U+FFFD; a line break stays, the next line indented so no
 * message can forge a line of its own.
 */
export function sanitize(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what is removed
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, "\uFFFD")
      .replace(/\n/g, "\n  ")
  );
}

/** `HH:MM` in the local time zone (TZ), as a chat app shows it. */
export function clock(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "--:--";
  return `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
}

/**
 * B-074: "→ you should respond" when the hub routed the message to this agent; "→ you were
 * mentioned" when it @mentioned the agent but did not route it (the round cap, or another agent
 * was chosen): information, not a prompt to answer.
 */
export function markerOf(message: ShownMessage, me: string): string | null {
  if (message.shouldRespond) return SHOULD_RESPOND;
  if (message.mentions.includes(me)) return MENTIONED;
  return null;
}

/**
 * B-101: `[HH:MM] <Name> (<role>): <text>` and the marker. A sender who left has role null (B-098):
 * the line then names it without a role.
 */
export function renderLine(message: ShownMessage, me: string): string {
  const role = message.sender.role === null ? "" : ` (${sanitize(message.sender.role)})`;
  const marker = markerOf(message, me);
  const line = `[${clock(message.createdAt)}] ${sanitize(message.sender.name)}${role}: ${sanitize(message.content)}${marker ? ` ${marker}` : ""}`;
  return [line, ...attachmentLines(message.metadata, sanitize)].join("\n");
}

/** One file of `maity files`: its id first (download it with its message's URL, or the dashboard). */
export const renderFile = (f: LibraryListing["files"][number]): string =>
  `${f.attachmentId} ${JSON.stringify(sanitize(f.fileName))} (${f.type}, ${sanitize(f.mimeType)}, ${sizeText(f.sizeBytes)})` +
  `${f.messageId ? ` in ${f.messageId}` : ""}${f.source?.kind === "chat" ? ` from ${f.source.conversationId}` : ""}`;

/** A poll's tally: answers from 1, as the poll shows them. */
export function renderTally(poll: AgentPoll): string {
  const votes = poll.options.map((o) => `answer ${o.index + 1}: ${o.count}`).join(", ") || "no votes";
  const mine = poll.mine.map((i) => i + 1).join(", ") || "none";
  return `poll ${poll.id}: ${poll.voterCount} voter(s)${poll.closed ? ", closed" : ""}; ${votes}; your vote: ${mine}`;
}

/** B-090: `<id> [<type>] <title>`; a DM has no title, so it shows as "(direct)". */
export const renderRoom = (room: { id: string; type: string; title: string | null }): string =>
  `${room.id} [${room.type}] ${room.title === null ? "(direct)" : sanitize(room.title)}`;

/** What the refusal is about, to word it. */
export interface ErrorContext {
  baseUrl: string;
  conversationId?: string;
  /** Where the token came from: the fix differs. */
  source?: "env" | "file";
}

/**
 * One line for stderr, never a stack: the protocol's refusals in words that say what to do
 * (004 §11 codes), and an unreachable hub named by its URL.
 */
export function describeError(error: unknown, context: ErrorContext): string {
  if (error instanceof AgentApiError) {
    const code = `(${error.status} ${error.code})`;
    const room = context.conversationId === undefined ? "" : ` ${context.conversationId}`;
    if (error.status === 401) {
      const fix = context.source === "env" ? "check MAITY_TOKEN or run maity pair" : "run maity pair";
      return `token revoked or wrong: ${fix} ${code}`;
    }
    if (error.status === 403 && error.code === "NOT_PARTICIPANT")
      return `you are not a participant of conversation${room} ${code}`;
    if (error.status === 404 && context.conversationId !== undefined) {
      return `no conversation${room} that you are in (or no such message to reply to): ${error.message} ${code}`;
    }
    if (error.status === 404) return `not found: ${error.message} ${code}`;
    if (error.status === 429) {
      const wait = error.retryAfter === null ? "a moment" : `${error.retryAfter} s`;
      return `rate limited by the hub: try again in ${wait} ${code}`;
    }
    const fields = Object.entries(error.fields).map(([field, reason]) => `${field}: ${reason}`);
    return `${error.message}${fields.length ? ` (${fields.join("; ")})` : ""} ${code}`;
  }
  if (isUnreachable(error)) return `cannot reach the hub at ${context.baseUrl}`;
  return (error as Error)?.message || String(error);
}

/** fetch() failing before any answer: refused, unknown host, reset, a malformed URL. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError && /fetch failed|Failed to parse URL|Invalid URL/i.test(error.message);
}

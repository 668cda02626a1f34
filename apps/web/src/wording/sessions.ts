import { agoWords } from "./devices";

// The people's side of terminal sessions (issue 30, DESIGN §4e): the "session of …" badge in a chat's
// people lists, and Your sessions on /agents — where each runs, its fresh start in words, and why a
// fresh start was refused. Pure, table-tested (test/sessions.test.ts); the clock is the caller's.

type HubError = { code: string; message: string; details: { fields?: Record<string, string>; reason?: string } };
export type FreshState = "awaiting_note" | "note_saved" | "cleared" | "fresh" | "cancelled";

/** A participant entry's session mark: "session of Maintainer"; null for anyone but a session. */
export function sessionOf(p: { session?: { person: { name: string } } | undefined }): string | null {
  return p.session ? `session of ${p.session.person.name}` : null;
}

/** Where a fresh start stands, in words. */
export function freshStateWords(state: FreshState): string {
  switch (state) {
    case "awaiting_note":
      return "Waiting for its handoff note";
    case "note_saved":
      return "Note saved — clearing";
    case "cleared":
      return "Cleared — starting fresh";
    case "fresh":
      return "Started fresh from its note";
    case "cancelled":
      return "Cancelled: no note in 15 minutes";
  }
}

/** The runtime a session registered, by name ("codex" → "Codex"); null when it gave none. */
export function runtimeName(runtime: string | null): string | null {
  if (!runtime) return null;
  const known: Record<string, string> = { codex: "Codex", "claude-code": "Claude Code", claude: "Claude Code" };
  return known[runtime] ?? runtime;
}

/** Where a session runs: "In maintainer · on e2e laptop · Codex" ("Visiting garden · …" in another Bay). */
export function sessionWhere(s: {
  bay: { name: string };
  visiting: boolean;
  device: { label: string | null };
  runtime: string | null;
}): string {
  const computer = s.device.label?.trim() || "a computer without a name";
  const parts = [`${s.visiting ? "Visiting" : "In"} ${s.bay.name}`, `on ${computer}`];
  const runtime = runtimeName(s.runtime);
  if (runtime) parts.push(runtime);
  return parts.join(" · ");
}

/** When it last joined: "Last joined 5 min ago". */
export const sessionTimes = (s: { last_joined_at: string }, now: Date): string =>
  `Last joined ${agoWords(s.last_joined_at, now)}`;

/** What Start fresh does, said before it is confirmed. */
export const FRESH_START_EXPLAINED =
  "It writes a handoff note first; nothing is cleared without a saved note; if none comes in 15 minutes " +
  "nothing happens.";

/** The row's confirmation before a fresh start. */
export const freshStartQuestion = (name: string): string => `Start ${name} fresh? ${FRESH_START_EXPLAINED}`;

/** Why a visiting session has no Start fresh. */
export const VISITING_NOT_FRESH = "A session visiting another Bay is not started fresh there.";

/** The toast after a fresh start was asked for. */
export const freshStartAsked = (name: string): string => `Fresh start of ${name} asked`;
export const FRESH_START_NEXT = "It writes its handoff note first; only a saved note lets it be cleared.";

/** Why a fresh start was refused, in words; null without an error. */
export function freshStartRefusal(error: HubError | null, failed: boolean): string | null {
  if (!error) return failed ? "The hub did not answer. Try again." : null;
  if (error.code === "conflict" && error.details.reason === "under_way") return "A fresh start is under way already.";
  if (error.code === "conflict" && error.details.reason === "visiting") return VISITING_NOT_FRESH;
  if (error.code === "not_found") return "This session is gone: it ended. Reload to see your sessions.";
  if (error.details.fields?.conversation_id)
    return "The session is in no chat yet: its handoff note is written from one of its chats.";
  return error.message;
}

/** The 95 % switch's toast. */
export const atNinetyFiveWords = (name: string, on: boolean): string =>
  on ? `${name} starts fresh by itself at 95 %` : `${name} no longer starts fresh by itself`;

/** A fresh start still moving (the list is read again until it settles). */
export const freshMoving = (state: FreshState | undefined): boolean =>
  state === "awaiting_note" || state === "note_saved" || state === "cleared";

/** Your sessions, when there are none. */
export const NO_SESSIONS =
  "No terminal sessions yet. Sign a computer in with `maity login`, then run `maity mcp` in Claude Code or " +
  "Codex: each terminal joins as a named session.";

import { z } from "zod";
import { text } from "./text.ts";

// A fresh start with a handoff (004 §18 "Fresh start with a handoff", B-289…B-296): the session's
// person asks for it (or lets it happen at 95 %); the session is handed one message asking for a
// handoff note with a handoffId; only once that note is saved may the relay hosting the session
// clear it, and the fresh session starts from the note. Nothing is cleared without a saved note;
// with none in 15 minutes the fresh start is cancelled. A session visiting another Bay is never
// started fresh there.

/** B-293: how long the session has to save its handoff note. */
export const HANDOFF_NOTE_WINDOW_MS = 15 * 60 * 1000;
/** B-291: a handoff note shorter than this says nothing a fresh session can start from. */
export const HANDOFF_NOTE_MIN_CHARS = 40;
/** B-296: the clear step's window (a clear the relay confirms later still counts). */
export const FRESH_CLEAR_WINDOW_MS = 5 * 60 * 1000;
/** B-289: the reading at which a fresh start begins by itself, when the person let it. */
export const FRESH_START_AUTO_PERCENT = 95;

export const FRESH_STATES = ["awaiting_note", "note_saved", "cleared", "fresh", "cancelled"] as const;
export type FreshState = (typeof FRESH_STATES)[number];

/**
 * How long a saved note waits for its relay to clear the session (the relay's clear counts after the
 * 5-minute window too, B-296) before the fresh start is given up: a computer switched off never
 * holds a session's fresh starts for good.
 */
export const FRESH_RELAY_WAIT_MS = 60 * 60 * 1000;

/**
 * Where a fresh start stands now: waiting for a note past its window is cancelled (B-293); a saved
 * note (or a clear) no relay finished within FRESH_RELAY_WAIT_MS too.
 */
export function freshStateOf(
  row: { state: string; expiresAt: Date; noteSavedAt?: Date | null | undefined },
  now: Date,
): FreshState {
  if (row.state === "awaiting_note" && row.expiresAt <= now) return "cancelled";
  const saved = row.noteSavedAt?.getTime();
  if ((row.state === "note_saved" || row.state === "cleared") && saved !== undefined)
    if (now.getTime() - saved > FRESH_RELAY_WAIT_MS) return "cancelled";
  return (FRESH_STATES as readonly string[]).includes(row.state) ? (row.state as FreshState) : "cancelled";
}

/** B-290: the title the note is asked for. */
export const handoffTitle = (date: Date): string => `Handoff · ${date.toISOString().slice(0, 10)}`;

/** B-289, B-290: the one message the session is handed (by its relay, or read from the device feed). */
export function handoffPrompt(input: { handoffId: string; conversationId: string; date: Date }): string {
  return (
    "Your person asked for a fresh start. Before anything is cleared, write a handoff note from this " +
    `conversation: create_note { conversationId: "${input.conversationId}", scope: "chat" (or "project" for this ` +
    `chat's project), title: "${handoffTitle(input.date)}", body, handoffId: "${input.handoffId}" } — pass the ` +
    "handoffId exactly as given. Say what you are doing, what is decided and what is next (40 characters at " +
    "least). Only once it is saved is the session cleared, after this turn ends, and the fresh session starts " +
    "from the note."
  );
}

/**
 * B-291: why a handoff note is refused, or null. It must be filed from the fresh start's conversation —
 * as that chat's note, or its project's — and say something (40 characters at least).
 */
export function handoffNoteRefusal(
  fresh: { conversationId: string; projectId: string },
  note: { conversationKey: string; projectId: string; scope: "chat" | "project"; body: string },
): "TOO_SHORT" | "WRONG_PLACE" | null {
  if (note.conversationKey !== fresh.conversationId || note.projectId !== fresh.projectId) return "WRONG_PLACE";
  if ([...note.body.trim()].length < HANDOFF_NOTE_MIN_CHARS) return "TOO_SHORT";
  return null;
}

/** B-292, B-293, B-296: which relay step may follow from a state (nothing is cleared before a note). */
export function relayStepAllowed(state: FreshState, step: "cleared" | "fresh"): boolean {
  if (step === "cleared") return state === "note_saved" || state === "cleared";
  return state === "cleared" || state === "fresh";
}

export const freshStartInput = z.strictObject({
  session_id: text("a session's id").min(1, "required").max(100),
  /** The chat the note is written from (the session must be in it); default the session's latest. */
  conversation_id: text("a conversation id").min(1).max(100).optional(),
});
export const freshStartView = z.object({
  handoff_id: z.string(),
  session: z.object({ id: z.string(), name: z.string() }),
  conversation_id: z.string(),
  state: z.enum(FRESH_STATES),
  created_at: z.string(),
  expires_at: z.string(),
  note_id: z.string().nullable(),
  result: z.string().nullable(),
  /** What the session is asked (the relay hands it as one message). */
  prompt: z.string(),
});
export type FreshStartView = z.output<typeof freshStartView>;

/** GET /api/device-api/handoff: the fresh starts of the sessions this device's relay hosts. */
export const relayHandoffSchema = z.object({
  handoffId: z.string(),
  session: z.string(),
  conversationId: z.string(),
  state: z.enum(FRESH_STATES),
  prompt: z.string(),
  /** The note's window while it is awaited; the clear step's window once the note is saved (B-296). */
  expiresAt: z.string(),
  noteId: z.string().nullable(),
});
export const relayHandoffsOutput = z.object({ items: z.array(relayHandoffSchema) });
export const relayHandoffReport = z.strictObject({
  handoffId: text("a handoffId").min(1, "required").max(100),
  step: z.enum(["cleared", "fresh"], { error: "cleared or fresh" }),
  /** B-296: a fresh session whose first prompt failed, or whose start could not be checked. */
  result: z.enum(["FIRST_PROMPT_FAILED", "UNVERIFIED"]).optional(),
});

/** GET /api/me/sessions: a person's live terminal sessions. */
export const mySessionsOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      bay: z.object({ id: z.string(), name: z.string() }),
      visiting: z.boolean(),
      device: z.object({ id: z.string(), label: z.string().nullable() }),
      runtime: z.string().nullable(),
      last_joined_at: z.string(),
      fresh_start_at_95: z.boolean(),
      fresh_start: z.object({ handoff_id: z.string(), state: z.enum(FRESH_STATES) }).nullable(),
    }),
  ),
});

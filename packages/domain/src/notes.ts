import { z } from "zod";
import { position } from "./integers.ts";
import { text } from "./text.ts";
import { ruleIssue } from "./validation.ts";

// Notes (spec 004 v1.17, B-241…B-257; DESIGN §4b): Markdown pages on a project or on one chat,
// pinned (every agent always reads them) or on the shelf (listed by title, opened on demand). People
// and agents write them; only people pin (a pinned note costs every agent every message). Each
// change takes the next version; every edit names the version it was made from, and a stale one is
// refused with the current version, so two writers never overwrite each other silently.

export const NOTE_TITLE_MAX = 120;
export const NOTE_BODY_MAX = 100_000;
/** B-245: notes a project (its own, not its chats') and one chat may hold. */
export const NOTES_PER_PROJECT = 200;
export const NOTES_PER_CHAT = 50;
/**
 * A note's request body may pass the hub's 256 KiB: 100,000 characters are up to 400,000 bytes of
 * UTF-8, and JSON may escape some as six. One MiB holds any valid note.
 */
export const NOTE_REQUEST_MAX_BYTES = 1024 * 1024;
/** B-252: shelf titles an agent is handed, newest first; the rest are counted (`more`). */
export const SHELF_TITLES_MAX = 20;
/** B-246: note writes an agent may make a minute, across HTTP and MCP, creates and edits apart. */
export const NOTE_CREATES_PER_MINUTE = 60;
export const NOTE_EDITS_PER_MINUTE = 60;

export const NOTE_SCOPES = ["project", "chat"] as const;
export type NoteScope = (typeof NOTE_SCOPES)[number];

const codePoints = (s: string): number => [...s].length;

/**
 * A title is one line of 1–120 characters: it is shown as `### <title>` and `- <title> [<id>]` in an
 * agent's instructions (B-170), where a line break would let a title write a heading of its own.
 */
const noteTitle = text("a string").superRefine((s, ctx) => {
  const reason =
    s.trim() === ""
      ? "required"
      : codePoints(s) > NOTE_TITLE_MAX
        ? `1–${NOTE_TITLE_MAX} characters`
        : /[\p{Cc}\p{Zl}\p{Zp}]/u.test(s)
          ? "one line"
          : null;
  if (reason) ctx.addIssue(ruleIssue(reason, [], s, { agentCode: "INVALID_NOTE" }));
});
const noteBody = text("a string").superRefine((s, ctx) => {
  if (codePoints(s) > NOTE_BODY_MAX)
    ctx.addIssue(ruleIssue(`at most ${NOTE_BODY_MAX} characters`, [], s, { agentCode: "INVALID_NOTE" }));
});
const pinned = z.boolean({ error: "true or false" });
const baseVersion = position("the version the edit was made from");
const scope = z.enum(NOTE_SCOPES, { error: "project or chat" });

/** A stored title is the one line it was given, without surrounding blanks. */
export const normalizeNoteTitle = (title: string): string => title.trim();

// ---- the people's routes (DESIGN §4b, snake_case) -------------------------------------------------

/** POST …/notes (a project's) and POST …/conversations/{id}/notes (a chat's). */
export const noteCreateInput = z.object({ title: noteTitle, body: noteBody, pinned: pinned.optional() });
/** PATCH …/notes/{note_id}: what changes, from the version it was read at. */
export const notePatchInput = z.object({
  base_version: baseVersion,
  title: noteTitle.optional(),
  body: noteBody.optional(),
  pinned: pinned.optional(),
});

export const noteSchema = z.object({
  id: z.string(),
  scope: z.enum(NOTE_SCOPES),
  /** The chat's id as the reader names it (a project note: null). */
  conversation_id: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  pinned: z.boolean(),
  version: z.number().int().positive(),
  created_by: z.string(),
  updated_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Note = z.output<typeof noteSchema>;
export const noteListOutput = z.object({ items: z.array(noteSchema) });

// ---- the agent API (004 v1.17, camelCase) --------------------------------------------------------

export const agentNoteId = text("a note id").min(1, "required").max(100, "a note id");

/** POST /conversations/:id/notes, create_note (B-243, B-260): a chat note unless scope says project. */
export const agentNoteCreateInput = z.strictObject({
  conversationId: z.string({ error: "a conversation id" }).min(1, "required"),
  scope: scope.optional(),
  title: noteTitle,
  body: noteBody,
  /** A fresh start's handoff (§18, B-260): accepted and kept with the note. */
  handoffId: text("a handoff id").min(1, "a handoff id").max(100, "a handoff id").optional(),
});
/** PATCH /notes/:id, update_note (B-244): `baseVersion` always; `pinned` is people's (B-242). */
export const agentNotePatchInput = z.strictObject({
  noteId: agentNoteId,
  baseVersion,
  title: noteTitle.optional(),
  body: noteBody.optional(),
  pinned: pinned.optional(),
  /** The chat the agent works in: where its edit's quiet line is posted (a chat note's own chat otherwise). */
  conversationId: z.string({ error: "a conversation id" }).min(1, "required").optional(),
});
/** GET /notes/:id (?conversationId=), get_note. */
export const agentNoteGetInput = z.strictObject({
  noteId: agentNoteId,
  conversationId: z.string({ error: "a conversation id" }).min(1, "required").optional(),
});

export const agentNoteSchema = z.object({
  id: z.string(),
  scope: z.enum(NOTE_SCOPES),
  /** The chat of a chat note (its global id); null for a project note. */
  conversationId: z.string().nullable(),
  title: z.string(),
  body: z.string(),
  pinned: z.boolean(),
  version: z.number().int().positive(),
  createdBy: z.string(),
  updatedBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AgentNote = z.output<typeof agentNoteSchema>;
/** list_notes: every note the agent may read here, without bodies (open one with get_note). */
export const agentNoteListSchema = z.object({
  notes: z.array(agentNoteSchema.omit({ body: true })),
});
export type AgentNoteList = z.output<typeof agentNoteListSchema>;

// ---- order (B-172) --------------------------------------------------------------------------------

export type NoteOrderKey = { id: string; pinned: boolean; createdAt: Date | string };
const at = (d: Date | string): number => (typeof d === "string" ? Date.parse(d) : d.getTime());

/**
 * Pinned notes oldest first (an edit does not move one), then the shelf newest first — by creation,
 * so an edit moves nothing and the instructions block stays byte-stable (B-169). Ties by id.
 */
export function compareNotes(a: NoteOrderKey, b: NoteOrderKey): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  const d = at(a.createdAt) - at(b.createdAt);
  if (d !== 0) return a.pinned ? d : -d;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

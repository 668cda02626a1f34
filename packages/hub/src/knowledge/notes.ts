import { randomBytes } from "node:crypto";
import {
  type AgentNote,
  type AgentNoteList,
  type agentNoteCreateInput,
  type agentNotePatchInput,
  compareNotes,
  HubError,
  type Note,
  NOTES_PER_CHAT,
  NOTES_PER_PROJECT,
  type noteCreateInput,
  type notePatchInput,
  noteQuietText,
  normalizeNoteTitle,
  type ProjectRef,
} from "@maity/domain";
import type { SqlExecutor, SqlRunner } from "@maity/db";
import type { z } from "zod";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { memberProject, projectOf, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { type KeyRow, readKeys } from "../access/visibility.ts";
import type { RateLimits } from "../auth/limits.ts";
import type { LiveBus, LogEvent } from "../delivery/bus.ts";
import { takeHandoffNote } from "../sessions/handoffNote.ts";
import { writeQuietLine } from "../messages/quiet.ts";
import { rawOf } from "../raw.ts";

// Notes (004 v1.17, B-241…B-257; DESIGN §4b): a project's notes and a chat's, for people (the Maity
// routes) and agents (the agent API and MCP, one operation each). People read what they can see of
// the project or chat and pin; agents read and write, never pin (B-242), never delete; a visiting
// agent reads the chat's notes but no project note and writes none (B-248). Every change takes the
// next version in one statement guarded by the version it was made from (B-244); an agent's edit,
// and its opening a shelf note, leave a quiet line in the chat (B-247), committed with the change.

type NoteRow = {
  id: string;
  project_id: string;
  conversation_id: string | null;
  public_id: string | null;
  title: string;
  body: string;
  pinned: boolean;
  version: number;
  created_by: string;
  updated_by: string;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = `n.id, n.project_id, n.conversation_id, c.public_id, n.title, n.body, n.pinned, n.version,
  n.created_by, n.updated_by, n.created_at, n.updated_at`;
const BY_ID_SQL = `SELECT ${COLUMNS} FROM notes n LEFT JOIN conversations c ON c.id = n.conversation_id WHERE n.id = $1`;
/** A project's own notes ($2 null) or one chat's. */
const LIST_SQL = `SELECT ${COLUMNS} FROM notes n LEFT JOIN conversations c ON c.id = n.conversation_id
  WHERE n.project_id = $1 AND n.conversation_id IS NOT DISTINCT FROM $2::text`;
/** What an agent reads in a room: the project's notes (unless it visits) and the chat's. */
const ROOM_SQL = `SELECT ${COLUMNS} FROM notes n LEFT JOIN conversations c ON c.id = n.conversation_id
  WHERE n.project_id = $1 AND (n.conversation_id = $2 OR ($3 AND n.conversation_id IS NULL))`;

/**
 * A new note, within its place's limit: the count and the insert under one lock per place, so two
 * creators never pass the limit together. $1 id … $9 at; $10 the limit.
 */
const CREATE_SQL = `
INSERT INTO notes (id, project_id, conversation_id, title, body, pinned, version, handoff_id, created_by, updated_by,
                   created_at, updated_at)
SELECT $1, $2, $3::text, $4, $5, $6, 1, $7::text, $8, $8, $9::timestamp, $9::timestamp
WHERE (SELECT count(*) FROM notes WHERE project_id = $2 AND conversation_id IS NOT DISTINCT FROM $3::text) < $10
RETURNING id`;

/**
 * An edit from version $2: the next version, only when something changes and the base is current.
 * No row: missing, stale, or nothing to change (the caller reads which).
 */
const PATCH_SQL = `
UPDATE notes SET title = coalesce($3::text, title), body = coalesce($4::text, body), pinned = coalesce($5::boolean, pinned),
  version = version + 1, updated_by = $6, updated_at = $7::timestamp
WHERE id = $1 AND version = $2
  AND (title IS DISTINCT FROM coalesce($3::text, title) OR body IS DISTINCT FROM coalesce($4::text, body)
       OR pinned IS DISTINCT FROM coalesce($5::boolean, pinned))
RETURNING id`;

const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
const scopeOf = (r: NoteRow) => (r.conversation_id === null ? ("project" as const) : ("chat" as const));

const peopleView = (r: NoteRow): Note => ({
  id: r.id,
  scope: scopeOf(r),
  conversation_id: r.public_id,
  title: r.title,
  body: r.body,
  pinned: r.pinned,
  version: Number(r.version),
  created_by: r.created_by,
  updated_by: r.updated_by,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const agentView = (r: NoteRow): AgentNote => ({
  id: r.id,
  scope: scopeOf(r),
  conversationId: r.conversation_id,
  title: r.title,
  body: r.body,
  pinned: r.pinned,
  version: Number(r.version),
  createdBy: r.created_by,
  updatedBy: r.updated_by,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const ordered = (rows: NoteRow[]) =>
  rows.sort((a, b) =>
    compareNotes(
      { id: a.id, pinned: a.pinned, createdAt: a.created_at },
      { id: b.id, pinned: b.pinned, createdAt: b.created_at },
    ),
  );

const newNoteId = (): string => `note-${randomBytes(6).toString("hex")}`;

const noteNotFound = () => HubError.notFound("note not found").named("NOTE_NOT_FOUND");
const noteForbidden = (reason: string, message: string) =>
  HubError.forbidden(reason, message, { agentCode: "NOTE_FORBIDDEN" });

export function notesService(sql: SqlRunner, bus: LiveBus, limits: RateLimits) {
  const raw = rawOf(sql);
  const byId = async (db: SqlExecutor, id: string): Promise<NoteRow | null> =>
    id.length > 0 && id.length <= 100 ? ((await db.query<NoteRow>(BY_ID_SQL, [id]))[0] ?? null) : null;

  /**
   * Whether an agent is an active member of a project, whether it visits there (v1.14) and whether the
   * project shares its notes with visitors (DESIGN §4b): `projectNotes` — it may read the project's notes.
   */
  async function agentInProject(agent: AgentCaller, projectId: string) {
    const [row] = await sql.query<{ member: boolean; visiting: boolean; projectNotes: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.project_id = p.id AND m.member_id = $1 AND m.status = 'active')
                AS member,
              (o.bay_id <> p.bay_id) AS visiting, (o.bay_id = p.bay_id OR p.share_with_visitors) AS "projectNotes"
       FROM projects p, agents a JOIN humans o ON o.id = a.owner_id WHERE p.id = $2 AND a.id = $1`,
      [agent.id, projectId],
    );
    return row ?? { member: false, visiting: true, projectNotes: false };
  }

  /** One of the agent's rooms by its global id (the agent API's conversationId); null otherwise. */
  async function agentRoom(agent: AgentCaller, key: string): Promise<KeyRow | null> {
    if (!/^[a-z0-9]{8,40}$/i.test(key)) return null;
    const [row] = await readKeys(raw, agent, { conversationKey: key, observed: false, lean: true });
    return row ?? null;
  }

  /**
   * Creates a note in its place (`room` null: the project's own) under the place's lock; note_limit
   * when full (B-245). Returns the stored row.
   */
  async function create(
    tx: SqlExecutor,
    place: { projectId: string; conversationKey: string | null },
    note: { title: string; body: string; pinned: boolean; handoffId: string | null },
    by: string,
  ): Promise<NoteRow> {
    const limit = place.conversationKey === null ? NOTES_PER_PROJECT : NOTES_PER_CHAT;
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`notes ${place.conversationKey ?? place.projectId}`]);
    const id = newNoteId();
    const [made] = await tx.query(CREATE_SQL, [
      id,
      place.projectId,
      place.conversationKey,
      normalizeNoteTitle(note.title),
      note.body,
      note.pinned,
      note.handoffId,
      by,
      new Date().toISOString(),
      limit,
    ]);
    if (!made)
      throw new HubError(
        "note_limit",
        `a ${place.conversationKey === null ? "project" : "chat"} holds at most ${limit} notes`,
        { limit },
        { agentCode: "NOTE_LIMIT_REACHED" },
      );
    return (await byId(tx, id)) as NoteRow;
  }

  /**
   * Edits a note from `base` (B-244): the next version when something changes; the note as it is
   * when nothing does; not found; or version_conflict naming the current version.
   */
  async function patch(
    tx: SqlExecutor,
    id: string,
    base: number,
    change: { title?: string | undefined; body?: string | undefined; pinned?: boolean | undefined },
    by: string,
  ): Promise<{ row: NoteRow; changed: boolean }> {
    const [done] = await tx.query(PATCH_SQL, [
      id,
      base,
      change.title === undefined ? null : normalizeNoteTitle(change.title),
      change.body ?? null,
      change.pinned ?? null,
      by,
      new Date().toISOString(),
    ]);
    const row = await byId(tx, id);
    if (!row) throw noteNotFound();
    if (done) return { row, changed: true };
    if (Number(row.version) !== base)
      throw new HubError(
        "version_conflict",
        `the note is at version ${row.version}; edit it from there`,
        { version: Number(row.version) },
        { agentCode: "NOTE_VERSION_CONFLICT" },
      );
    return { row, changed: false };
  }

  /** Spends one of the agent's note writes (B-246: one budget across HTTP and MCP). */
  function spend(bucket: "noteCreates" | "noteEdits", agent: AgentCaller): void {
    const retry = limits.take(bucket, agent.id);
    if (retry !== null)
      throw new HubError(
        "rate_limited",
        `at most ${limits.settings[bucket]} note ${bucket === "noteCreates" ? "creates" : "edits"} a minute`,
        { retry_after: retry, limit: bucket },
        { agentCode: "TOOL_RATE_LIMITED" },
      );
  }

  /** Runs a change and its quiet line in one transaction; publishes the line once committed. */
  async function withLine<T>(fn: (tx: SqlExecutor, lines: LogEvent[]) => Promise<T>): Promise<T> {
    const lines: LogEvent[] = [];
    const out = await sql.transaction((tx) => fn(tx, lines));
    for (const line of lines) bus.publish(line);
    return out;
  }

  // ---- people ---------------------------------------------------------------------------------

  /** The place of the people's routes: the project (members) or a chat the caller sees; people only. */
  async function peoplePlace(caller: Caller, ref: ProjectRef, conversationId: string | null) {
    if (conversationId === null) {
      const project = await memberProject(raw, caller, ref);
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "agents use the agent API's notes");
      return { projectId: project.id, row: null };
    }
    const row = await resolveConversation(raw, caller, ref, conversationId, { lean: true });
    if (caller.kind !== "human") throw HubError.forbidden("humans_only", "agents use the agent API's notes");
    return { projectId: row.projectId, row };
  }

  /** A note of the project as one of its people reaches it: a chat note only through a chat they see. */
  async function peopleNote(caller: Caller, ref: ProjectRef, noteId: string) {
    if (caller.kind !== "human") {
      await memberProject(raw, caller, ref);
      throw HubError.forbidden("humans_only", "agents use the agent API's notes");
    }
    const project = await projectOf(raw, ref);
    const member =
      project !== null &&
      (await memberProject(raw, caller, ref).then(
        () => true,
        () => false,
      ));
    // Hidden = missing: who is not of the project meets what an unknown project answers.
    const hidden = () => (member ? noteNotFound() : HubError.notFound("project not found"));
    const note = project ? await byId(sql, noteId) : null;
    if (!project || !note || note.project_id !== project.id) throw hidden();
    // A project note: its people. A chat note: whoever reads the chat — an observer from outside the
    // project too, as the chat's list shows it (§9.2).
    if (note.conversation_id === null) {
      if (!member) throw hidden();
      return { note, row: null };
    }
    const [row] = await readKeys(raw, caller, {
      projectId: project.id,
      observed: true,
      conversationKey: note.conversation_id,
      lean: true,
    });
    if (!row) throw hidden();
    return { note, row };
  }

  const service = {
    /** GET …/notes, GET …/conversations/{id}/notes: pinned oldest first, then the shelf newest first. */
    async list(caller: Caller, ref: ProjectRef, conversationId: string | null): Promise<{ items: Note[] }> {
      const place = await peoplePlace(caller, ref, conversationId);
      const rows = await sql.query<NoteRow>(LIST_SQL, [place.projectId, place.row?.key ?? null]);
      return { items: ordered(rows).map(peopleView) };
    },

    /** POST …/notes, POST …/conversations/{id}/notes → 201 the note; an observer reads only. */
    async create(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string | null,
      input: z.output<typeof noteCreateInput>,
    ): Promise<Note> {
      const place = await peoplePlace(caller, ref, conversationId);
      if (place.row) refuseObserver(place.row);
      const row = await sql.transaction((tx) =>
        create(
          tx,
          { projectId: place.projectId, conversationKey: place.row?.key ?? null },
          { title: input.title, body: input.body, pinned: input.pinned ?? false, handoffId: null },
          caller.id,
        ),
      );
      return peopleView(row);
    },

    async get(caller: Caller, ref: ProjectRef, noteId: string): Promise<Note> {
      return peopleView((await peopleNote(caller, ref, noteId)).note);
    },

    /** PATCH …/notes/{id}: from base_version (409 version_conflict with the current one); people pin. */
    async patch(
      caller: Caller,
      ref: ProjectRef,
      noteId: string,
      input: z.output<typeof notePatchInput>,
    ): Promise<Note> {
      const { row } = await peopleNote(caller, ref, noteId);
      if (row) refuseObserver(row);
      const done = await sql.transaction((tx) =>
        patch(
          tx,
          noteId,
          input.base_version,
          { title: input.title, body: input.body, pinned: input.pinned },
          caller.id,
        ),
      );
      return peopleView(done.row);
    },

    /** DELETE …/notes/{id} → 204; an agent holding it is handed it in `removed` (B-251). */
    async remove(caller: Caller, ref: ProjectRef, noteId: string): Promise<void> {
      const { row } = await peopleNote(caller, ref, noteId);
      if (row) refuseObserver(row);
      await sql.query("DELETE FROM notes WHERE id = $1", [noteId]);
    },

    // ---- agents (004 v1.17) ---------------------------------------------------------------------

    /** GET /conversations/:id/notes, list_notes: what the agent may read here, without bodies. Null: not in the room. */
    async agentList(agent: AgentCaller, key: string): Promise<AgentNoteList | null> {
      const room = await agentRoom(agent, key);
      if (!room) return null;
      const { projectNotes } = await agentInProject(agent, room.projectId);
      const rows = await sql.query<NoteRow>(ROOM_SQL, [room.projectId, room.key, projectNotes]);
      return {
        notes: ordered(rows).map((r) => {
          const { body: _body, ...listed } = agentView(r);
          return listed;
        }),
      };
    },

    /**
     * GET /notes/:id (?conversationId=), get_note. A chat note is read by its chat's participants; a
     * project note by the project's agents that do not visit (B-248), from one of their rooms in it
     * when `conversationId` names one. Opening a shelf note leaves a quiet line there (B-247).
     */
    async agentGet(agent: AgentCaller, noteId: string, conversationId?: string): Promise<AgentNote> {
      const { note, room } = await agentNote(agent, noteId, conversationId);
      if (!note.pinned && room)
        await withLine(async (tx, lines) => {
          const line = await writeQuietLine(tx, room, {
            type: "note.read",
            actor: agent.id,
            subject: note.id,
            body: noteQuietText("note.read", agent.handle, note.title),
          });
          if (line) lines.push(line);
        });
      return agentView(note);
    },

    /** POST /conversations/:id/notes, create_note → 201 (a chat note unless scope is project). Null: not in the room. */
    async agentCreate(agent: AgentCaller, input: z.output<typeof agentNoteCreateInput>): Promise<AgentNote | null> {
      const room = await agentRoom(agent, input.conversationId);
      if (!room) return null;
      const { visiting } = await agentInProject(agent, room.projectId);
      if (visiting) throw noteForbidden("visiting", "a visiting agent reads notes and writes none");
      spend("noteCreates", agent);
      const row = await withLine(async (tx, lines) => {
        // B-290, B-291: a fresh start's handoff note is checked before anything is saved.
        const handoff = input.handoffId
          ? await takeHandoffNote(tx, agent, input.handoffId, {
              conversationKey: room.key,
              projectId: room.projectId,
              scope: input.scope === "project" ? "project" : "chat",
              body: input.body,
            })
          : null;
        const made = await create(
          tx,
          { projectId: room.projectId, conversationKey: input.scope === "project" ? null : room.key },
          { title: input.title, body: input.body, pinned: false, handoffId: input.handoffId ?? null },
          agent.id,
        );
        const line = handoff ? await handoff.saved(made.id, room) : null;
        if (line) lines.push(line);
        return made;
      });
      return agentView(row);
    },

    /** PATCH /notes/:id, update_note: from baseVersion; never a pin (B-242); a quiet line where it works (B-247). */
    async agentPatch(agent: AgentCaller, input: z.output<typeof agentNotePatchInput>): Promise<AgentNote> {
      const { note, room, visiting } = await agentNote(agent, input.noteId, input.conversationId);
      if (visiting) throw noteForbidden("visiting", "a visiting agent reads notes and writes none");
      if (input.pinned !== undefined) throw noteForbidden("people_pin", "only people pin or unpin a note");
      spend("noteEdits", agent);
      const change = { title: input.title, body: input.body };
      return withLine(async (tx, lines) => {
        const done = await patch(tx, note.id, input.baseVersion, change, agent.id);
        if (done.changed && room) {
          const line = await writeQuietLine(tx, room, {
            type: "note.edited",
            actor: agent.id,
            subject: note.id,
            body: noteQuietText("note.edited", agent.handle, done.row.title),
          });
          if (line) lines.push(line);
        }
        return agentView(done.row);
      });
    },
  };

  /**
   * A note as an agent reaches it, and the room its quiet lines go to: a chat note's own chat; a
   * project note's `conversationId` when that is one of the agent's rooms in the project. Anything
   * it may not read answers NOTE_NOT_FOUND (hidden = missing).
   */
  async function agentNote(agent: AgentCaller, noteId: string, conversationId?: string) {
    const note = await byId(sql, noteId);
    if (!note) throw noteNotFound();
    const { member, visiting, projectNotes } = await agentInProject(agent, note.project_id);
    if (note.conversation_id !== null) {
      const room = await agentRoom(agent, note.conversation_id);
      if (!room) throw noteNotFound();
      return { note, room, visiting };
    }
    if (!member || !projectNotes) throw noteNotFound();
    const room = conversationId === undefined ? null : await agentRoom(agent, conversationId);
    if (conversationId !== undefined && room?.projectId !== note.project_id) throw noteNotFound();
    return { note, room, visiting };
  }

  return service;
}
export type NotesService = ReturnType<typeof notesService>;

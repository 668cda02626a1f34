import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentNote, AgentNoteList, AgentProject } from "@maity/domain";
import type { AgentCommand } from "../commands.ts";
import { sanitize } from "../render.ts";
import { type Io, json } from "./io.ts";
import type { Session } from "./session.ts";

// The brief and the notes from the command line (004 v1.15–v1.17): read the room's brief, list and
// open notes, write one — with $EDITOR when no text is given, as git commit does. An edit always
// names the version it was made from: the one given, or the one read before the editor opened, so
// someone else's edit meanwhile is refused (NOTE_VERSION_CONFLICT) and never overwritten.

type NoteCommand = Extract<AgentCommand, { kind: "brief" | "notes" | "note-show" | "note-create" | "note-edit" }>;

/** Opens $EDITOR (then $VISUAL, then vi) on `initial`; the text saved, or null when it exits non-zero. */
export function editText(io: Io, initial: string, name: string): string | null {
  const editor = io.env.VISUAL || io.env.EDITOR || "vi";
  const dir = mkdtempSync(path.join(tmpdir(), "maity-note-"));
  const file = path.join(dir, name);
  try {
    writeFileSync(file, initial);
    // A shell reads $EDITOR as people set it ("code --wait", "nano -w"); the path is quoted.
    const run = spawnSync(`${editor} "${file}"`, { shell: true, stdio: "inherit", env: { ...process.env, ...io.env } });
    if (run.status !== 0) return null;
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const briefText = (p: AgentProject): string =>
  p.brief === null
    ? `${sanitize(p.name)}: no brief (version ${p.version})`
    : `${sanitize(p.name)}, brief version ${p.version} (room text written by the project's people):\n${p.brief}`;

const noteLine = (n: AgentNoteList["notes"][number]): string =>
  `${n.id}  ${n.pinned ? "pinned" : "shelf "}  ${n.scope.padEnd(7)}  v${n.version}  ${sanitize(n.title)}`;

const noteText = (n: AgentNote): string =>
  `${sanitize(n.title)} [${n.id}] ${n.pinned ? "pinned" : "shelf"}, ${n.scope}, version ${n.version}, updated ${n.updatedAt} by ${n.updatedBy}\n\n${n.body}`;

export async function noteCommand(command: NoteCommand, session: Session, asJson: boolean, io: Io): Promise<number> {
  const { client } = session;
  const done = (value: unknown, text: string) => {
    io.out(asJson ? json(value) : text);
    return 0;
  };
  switch (command.kind) {
    case "brief": {
      const project = await client.project(command.conversationId);
      return done(project, briefText(project));
    }
    case "notes": {
      const notes = await client.notes(command.conversationId);
      if (!asJson && notes.length === 0) {
        io.err("no notes here yet: maity note create <conversation_id> --title <title> writes one");
        return 0;
      }
      return done({ notes }, notes.map(noteLine).join("\n"));
    }
    case "note-show": {
      const note = await client.note(command.noteId, command.conversationId);
      return done(note, noteText(note));
    }
    case "note-create": {
      const body = command.body ?? editText(io, "", "note.md");
      if (body === null || body.trim() === "") {
        io.err("nothing written: the note is empty (or the editor exited with an error)");
        return 1;
      }
      const note = await client.createNote({
        conversationId: command.conversationId,
        title: command.title,
        body,
        ...(command.scope === "project" ? { scope: "project" as const } : {}),
      });
      return done(note, `saved ${note.id} "${sanitize(note.title)}", version ${note.version}`);
    }
    case "note-edit": {
      let { baseVersion, body } = command;
      if (body === undefined && command.title === undefined) {
        // Edit what is there now, from the version it was read at.
        const current = await client.note(command.noteId, command.conversationId);
        baseVersion ??= current.version;
        const edited = editText(io, current.body, "note.md");
        if (edited === null || edited === current.body) {
          io.err("nothing changed: the note is as it was");
          return edited === null ? 1 : 0;
        }
        body = edited;
      }
      if (baseVersion === undefined) baseVersion = (await client.note(command.noteId, command.conversationId)).version;
      const note = await client.updateNote({
        noteId: command.noteId,
        baseVersion,
        ...(body !== undefined ? { body } : {}),
        ...(command.title !== undefined ? { title: command.title } : {}),
        ...(command.conversationId !== undefined ? { conversationId: command.conversationId } : {}),
      });
      return done(note, `updated ${note.id} "${sanitize(note.title)}" to version ${note.version}`);
    }
  }
}

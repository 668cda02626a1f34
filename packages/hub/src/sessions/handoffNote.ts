import { freshStateOf, handoffNoteRefusal, HubError } from "@maity/domain";
import type { SqlExecutor } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import type { LogEvent } from "../delivery/bus.ts";
import { writeQuietLine } from "../messages/quiet.ts";

// A fresh start's handoff note (004 §18, B-290, B-291, B-295), checked inside the note's own
// transaction (knowledge/notes.ts): nothing is saved when it is refused.

/**
 * B-290, B-291: a create_note carrying a handoffId, inside the note's transaction (the fresh start's
 * row locked): refused with nothing saved when it is not the session's open fresh start, filed
 * elsewhere or too short; `saved` then moves it on and writes the quiet line (B-295).
 */
export async function takeHandoffNote(
  tx: SqlExecutor,
  agent: AgentCaller,
  handoffId: string,
  note: { conversationKey: string; projectId: string; scope: "chat" | "project"; body: string },
) {
  const [row] = await tx.query<{
    conversation_id: string;
    project_id: string;
    state: string;
    expires_at: Date | string;
  }>(
    "SELECT conversation_id, project_id, state, expires_at FROM fresh_starts WHERE id = $1 AND session_id = $2 FOR UPDATE",
    [handoffId, agent.id],
  );
  const invalid = (reason: "TOO_SHORT" | "WRONG_PLACE", message: string) =>
    new HubError("invalid", message, { reason }, { agentCode: "HANDOFF_NOTE_INVALID" });
  if (!row || freshStateOf({ state: row.state, expiresAt: new Date(row.expires_at) }, new Date()) !== "awaiting_note")
    throw invalid(
      "WRONG_PLACE",
      "no fresh start of yours waits for this handoffId (done, or cancelled after 15 minutes)",
    );
  const refusal = handoffNoteRefusal({ conversationId: row.conversation_id, projectId: row.project_id }, note);
  if (refusal === "WRONG_PLACE")
    throw invalid(
      "WRONG_PLACE",
      "write the handoff note from the conversation the fresh start names, as its chat or project note",
    );
  if (refusal === "TOO_SHORT")
    throw invalid(
      "TOO_SHORT",
      "a handoff note says what you are doing, what is decided and what is next: 40 characters at least",
    );
  return {
    /** The note is saved: the fresh start moves on; the room reads "<name> saved a handoff note". */
    async saved(noteId: string, room: Parameters<typeof writeQuietLine>[1]): Promise<LogEvent | null> {
      await tx.query(
        "UPDATE fresh_starts SET state = 'note_saved', note_id = $2, note_saved_at = $3::timestamp WHERE id = $1",
        [handoffId, noteId, new Date().toISOString()],
      );
      return writeQuietLine(tx, room, {
        type: "context.handoff",
        actor: agent.id,
        subject: `${handoffId}:saved`,
        body: `${agent.handle} saved a handoff note`,
      });
    },
  };
}

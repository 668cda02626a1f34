import {
  NOTE_REQUEST_MAX_BYTES,
  noteCreateInput,
  noteListOutput,
  notePatchInput,
  noteSchema,
  projectRef,
  text,
} from "@maity/domain";
import { z } from "zod";
import { authedProcedure, router } from "../trpc.ts";
import { C, conversationInput, noContent, P, projectInput } from "./inputs.ts";

// Notes, the people's side (DESIGN §4b; 004 v1.17): a project's notes and a chat's, read by whoever
// reads them, written by the project's people and the chat's participants (an observer reads only);
// people pin. Agents use the agent API's notes (one operation each, routers/agent.ts).

const noteId = text("a note id").min(1, "required").max(100, "at most 100 characters");
const noteInput = z.strictObject({ ...projectRef.shape, note_id: noteId });

export const notesRouter = router({
  list: authedProcedure
    .meta({
      rest: { method: "GET", path: `${P}/notes`, summary: "The project's notes: pinned oldest first, then the shelf" },
    })
    .input(projectInput)
    .output(noteListOutput)
    .query(({ ctx, input }) => ctx.hub.notes.list(ctx.caller, input, null)),
  create: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/notes`,
        status: 201,
        bodyMax: NOTE_REQUEST_MAX_BYTES,
        summary: "Write a project note (people)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...noteCreateInput.shape }))
    .output(noteSchema)
    .mutation(({ ctx, input }) => ctx.hub.notes.create(ctx.caller, input, null, input)),
  chatList: authedProcedure
    .meta({
      rest: { method: "GET", path: `${C}/notes`, summary: "A chat's notes: pinned oldest first, then the shelf" },
    })
    .input(conversationInput)
    .output(noteListOutput)
    .query(({ ctx, input }) => ctx.hub.notes.list(ctx.caller, input, input.conversation_id)),
  chatCreate: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${C}/notes`,
        status: 201,
        bodyMax: NOTE_REQUEST_MAX_BYTES,
        summary: "Write a chat note (its participants)",
      },
    })
    .input(z.strictObject({ ...conversationInput.shape, ...noteCreateInput.shape }))
    .output(noteSchema)
    .mutation(({ ctx, input }) => ctx.hub.notes.create(ctx.caller, input, input.conversation_id, input)),
  get: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/notes/{note_id}`, summary: "One note" } })
    .input(noteInput)
    .output(noteSchema)
    .query(({ ctx, input }) => ctx.hub.notes.get(ctx.caller, input, input.note_id)),
  update: authedProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: `${P}/notes/{note_id}`,
        bodyMax: NOTE_REQUEST_MAX_BYTES,
        summary:
          "Edit or pin a note from base_version; a stale one answers 409 version_conflict with the current version",
      },
    })
    .input(z.strictObject({ ...noteInput.shape, ...notePatchInput.shape }))
    .output(noteSchema)
    .mutation(({ ctx, input }) => ctx.hub.notes.patch(ctx.caller, input, input.note_id, input)),
  remove: authedProcedure
    .meta({ rest: { method: "DELETE", path: `${P}/notes/{note_id}`, status: 204, summary: "Delete a note" } })
    .input(noteInput)
    .output(noContent)
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.notes.remove(ctx.caller, input, input.note_id);
      return null;
    }),
});

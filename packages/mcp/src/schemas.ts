import { ATTACHMENTS_PER_MESSAGE_MAX, agentOperations, sendableCardSchema } from "@maity/domain";
import { z } from "zod";
import type { LocalToolName, MaityToolName } from "./text.ts";

// The tools' input schemas ARE the agent API's operation schemas: a field added to an operation's
// input appears in its tool with no edit here (test/schema.test.ts). The local server's disk tools
// add paths. Its own module: the server and the local tools both read it.

/** The field names a tool takes: exactly its operation's input fields (B-348's tools over §5–§7). */
type Shape<S> = S extends z.ZodObject<infer T> ? T : never;

/**
 * The operation's input schema with descriptions on some fields, for the model. Only existing
 * fields can be described, so no field is added, removed or renamed here.
 */
function described<S extends z.ZodObject>(schema: S, notes: Partial<Record<keyof Shape<S> & string, string>>): S {
  const shape = schema.shape as Record<string, z.ZodType>;
  const extra: Record<string, z.ZodType> = {};
  for (const [field, note] of Object.entries(notes) as [string, string][]) {
    const field_ = shape[field];
    if (!field_) throw new Error(`no field ${field} in the operation's input`);
    extra[field] = field_.describe(note);
  }
  return schema.safeExtend(extra) as unknown as S;
}

const ROOM = "The room's id (list_conversations gives them).";

/** B-211, B-213: at most ATTACHMENTS_PER_MESSAGE_MAX files on one message, ids and local paths together. */
const attachmentIdsField = z
  .array(z.string().min(1).max(100), { error: "a list of attachment ids" })
  .min(1, `1–${ATTACHMENTS_PER_MESSAGE_MAX} ids`)
  .max(ATTACHMENTS_PER_MESSAGE_MAX, `1–${ATTACHMENTS_PER_MESSAGE_MAX} ids`)
  .describe(
    "1–10 ids of files you already uploaded (upload_file, or POST /api/agent-api/attachments), in the order shown.",
  );
/** The send's own file fields: the tool takes attachmentIds instead (B-211), so they are not offered twice. */
const SEND_FILE_FIELDS = ["attachments", "attachmentId"];

/**
 * send_message's schema: the operation's fields (described), without its raw file fields, with
 * attachmentIds (B-211) and the card limited to the two sendable types by the schema itself (B-224).
 */
function sendSchema<S extends z.ZodObject>(schema: S, notes: Parameters<typeof described<S>>[1]) {
  const shape = Object.fromEntries(
    Object.entries(described(schema, notes).shape as Record<string, z.ZodType>).filter(
      ([k]) => !SEND_FILE_FIELDS.includes(k),
    ),
  );
  return z.strictObject({
    ...shape,
    attachmentIds: attachmentIdsField.optional(),
    card: sendableCardSchema
      .optional()
      .describe(
        "A calendar or email card: {type: 'card.calendar', payload: {title?, start?, end?, location?, attendees?, " +
          "notes?}} or {type: 'card.email', payload: {subject?, from?: {name?, address}, snippet?, body?, " +
          "timestamp?}}. content stays its plain-text fallback. Not with files.",
      ),
  }) as unknown as z.ZodObject<
    Omit<Shape<S>, "attachments" | "attachmentId" | "card"> & {
      attachmentIds: z.ZodOptional<typeof attachmentIdsField>;
      card: z.ZodOptional<typeof sendableCardSchema>;
    }
  >;
}

/** The tools' input schemas: the operation table's, with field notes (test/schema.test.ts). */
export const toolInputSchemas = {
  list_conversations: agentOperations.conversations.input,
  // MCP reads always ask for the brief and the notes (server.ts): `features` is not the model's to set.
  get_room_context: described(agentOperations.context.input.omit({ features: true }), { conversationId: ROOM }),
  get_project: described(agentOperations.project.input, { conversationId: ROOM }),
  list_notes: described(agentOperations.notes.input, { conversationId: ROOM }),
  get_conversation_summary: described(agentOperations.summary.input, { conversationId: ROOM }),
  get_note: described(agentOperations.noteGet.input.required({ conversationId: true }), {
    noteId: "The note's id (list_notes, or the shelf's [brackets]).",
    conversationId: "The room you read it from.",
  }),
  create_note: described(agentOperations.noteCreate.input, {
    conversationId: ROOM,
    scope: "chat (default): this chat's note; project: the whole project's.",
    title: "1–120 characters, one line.",
    body: "Markdown, up to 100,000 characters.",
    handoffId: "Only for a fresh start's handoff note: the handoffId exactly as given.",
  }),
  update_note: described(agentOperations.notePatch.input.omit({ pinned: true }).required({ conversationId: true }), {
    noteId: "The note's id.",
    baseVersion: "The version you read (get_note): a stale one is refused with the current version.",
    title: "A new title, 1–120 characters, one line.",
    body: "The new body, Markdown, up to 100,000 characters.",
    conversationId: "The room you work in: the people there see that you edited it.",
  }),
  get_messages: described(agentOperations.messages.input.omit({ features: true }), {
    conversationId: ROOM,
    since: "ISO 8601 time: only messages newer than it, oldest first (forward polling).",
    cursor: "nextCursor of an earlier page: the next older page, newest first.",
    limit: "How many messages, 1–200 (default 50).",
  }),
  send_message: sendSchema(agentOperations.send.input, {
    conversationId: ROOM,
    content: "The message text. @Name (exact roster name) triggers that agent.",
    replyToMessageId: "The id of the message you answer (shown as 'id …' under it).",
    clientMessageId: "Your id for this send: a retry with the same id answers the first message, never posts twice.",
  }),
  set_typing: described(agentOperations.typing.input, { conversationId: ROOM }),
  list_agents: agentOperations.agents.input,
  contact_agent: described(agentOperations.contact.input, {
    agentId: "The agent to address (list_agents or the room's participants give ids).",
    conversationId: "A room you and that agent are both in.",
    replyToMessageId: "The id of the agent's message you answer, if any.",
  }),
  list_files: described(agentOperations.files.input, { conversationId: ROOM }),
  search_messages: described(agentOperations.search.input, {
    q: 'What to find: words, "a phrase", from:@handle, in:<chat>, has:file|poll|card, after:/before:YYYY-MM-DD.',
    conversationId: "Only this room (optional; default: every room you are in).",
    cursor: "nextCursor of the previous page, for older results.",
    limit: "Results per page, 1–50 (default 20).",
  }),
  get_file: described(agentOperations.fileLink.input, {
    conversationId: ROOM,
    attachmentId: "The file's attachmentId (list_files, or a message's attachment).",
  }),
  create_poll: described(agentOperations.pollCreate.input, {
    conversationId: ROOM,
    question: "The question.",
    options: "2–10 different answers, in the order shown.",
    allowMultiple: "true: a voter may pick several answers (default false).",
  }),
  vote_in_poll: described(agentOperations.pollVote.input, {
    pollId: "The poll's id (shown with the poll's message).",
    optionIndexes:
      "The complete set of answers you hold, counted from 0 (answer 1 is index 0); [] withdraws your vote.",
  }),
  join_session_group: agentOperations.joinSessionGroup.input,
  react_to_message: described(agentOperations.react.input, {
    conversationId: ROOM,
    messageId: "The message's id.",
    emoji: "One emoji, e.g. 👍.",
  }),
  remove_reaction: described(agentOperations.unreact.input, {
    conversationId: ROOM,
    messageId: "The message's id.",
    emoji: "The emoji you reacted with.",
  }),
} satisfies Record<MaityToolName, z.ZodObject>;

/** The local stdio server reaches the agent's own disk (004 §10): these only exist there. */
export const localToolInputSchemas = {
  send_message: toolInputSchemas.send_message.safeExtend({
    files: z
      .array(z.string().min(1), { error: "a list of file paths" })
      .min(1)
      .max(ATTACHMENTS_PER_MESSAGE_MAX)
      .optional()
      .describe(
        "Paths of files on this machine to upload and attach (jpg, jpeg, png, gif, webp, pdf, doc, docx, xlsx, " +
          "pptx, txt, csv, zip); with attachmentIds at most 10 in all, the ids first.",
      ),
  }),
  upload_file: z.strictObject({
    path: z.string({ error: "a file path" }).min(1).describe("The file's path on this machine."),
    original: z
      .boolean()
      .optional()
      .describe("true: keep an image's exact bytes (otherwise it is compressed as a phone messenger does)."),
  }),
  download_attachment: z.strictObject({
    url: z
      .string({ error: "a URL" })
      .min(1)
      .describe("An attachment URL from a message or get_file: only your Maity hub's own URLs are fetched."),
    saveDir: z.string().min(1).optional().describe("The folder to save into (default ~/.maity/downloads)."),
  }),
} satisfies Partial<Record<MaityToolName | LocalToolName, z.ZodObject>>;

/** The local (stdio) server: it may read and write this machine's files. */
export interface LocalOptions {
  /** download_attachment's folder unless the call names one (default ~/.maity/downloads). */
  downloadDir?: string;
}

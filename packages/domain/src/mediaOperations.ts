import { z } from "zod";
import {
  ATTACHMENTS_PER_MESSAGE_MAX,
  calendarCardPayload,
  emailCardPayload,
  fileLinkSchema,
  libraryListingSchema,
  uploadAnswerSchema,
} from "./files.ts";
import { text } from "./text.ts";

// Issue 16, the operations of files that the SDK, the MCP tools and the CLI call while the server
// branches (files-core: upload; files-messages: files, fileLink, the send's attachments) are built
// in parallel. Spread into agentOperations in one line; at merge the server branches' own entries
// win and this file goes (docs/plans/issue-16.md, part mcp-cli-media).

const base = "/api/agent-api";
const room = `${base}/conversations/{conversationId}`;
const conversationId = z.string({ error: "a conversation id" }).min(1, "required");
const agentOp = { access: "agent", bucket: "agent" } as const;

/** B-198: the agent send's `attachments` item (files-messages: sendAttachmentSchema). */
export const mediaSendAttachmentSchema = z.strictObject({
  attachmentId: text("an attachment id").min(1).max(100),
});
/** B-198, B-211: 1–10 uploaded files in render order. */
export const mediaSendAttachmentsSchema = z
  .array(mediaSendAttachmentSchema, { error: "a list of {attachmentId}" })
  .min(1, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`)
  .max(ATTACHMENTS_PER_MESSAGE_MAX, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`);
/** The send's fields for files until files-messages adds them to agentSendInput (B-198, B-199). */
export const mediaSendFields = z.strictObject({
  attachments: mediaSendAttachmentsSchema.optional(),
  attachmentId: text("an attachment id").min(1).max(100).nullable().optional(),
});
export type MediaSendFields = z.input<typeof mediaSendFields>;

/**
 * B-224: a card as a tool offers it — the type itself limited to the two sendable ones, so a
 * client validating with it refuses card.decision or card.poll before anything is sent.
 */
export const sendableCardInput = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("card.calendar"), payload: calendarCardPayload }),
  z.strictObject({ type: z.literal("card.email"), payload: emailCardPayload }),
]);

export const mediaOperations = {
  upload: {
    ...agentOp,
    method: "POST",
    path: `${base}/attachments`,
    summary:
      "Upload one file (multipart/form-data, part `file`; `original=1` keeps the exact bytes) → 201 " +
      "{attachmentId, size, mimeType, thumbhash, fileName}; 413 FILE_TOO_LARGE, 415 UNSUPPORTED_FILE_TYPE, " +
      "400 INVALID_UPLOAD",
    input: z.strictObject({
      original: z.enum(["0", "1", "true", "false"], { error: "original: 1 or 0" }).optional(),
    }),
    output: uploadAnswerSchema,
    status: 201,
  },
  files: {
    ...agentOp,
    method: "GET",
    path: `${room}/attachments`,
    summary:
      "The files of this chat, the project's library and the project's other chats the agent is in, " +
      "without URLs (B-203…B-210); 403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject({ conversationId }),
    output: libraryListingSchema,
    status: 200,
  },
  fileLink: {
    ...agentOp,
    method: "GET",
    path: `${room}/attachments/{attachmentId}/link`,
    summary: "One fresh signed URL (~1 h) of a file the listing shows (B-204); 404 for any other",
    input: z.strictObject({ conversationId, attachmentId: text("an attachment id").min(1).max(100) }),
    output: fileLinkSchema,
    status: 200,
  },
} as const;

import { z } from "zod";
import { HubError } from "./errors.ts";
import { text } from "./text.ts";
import { ruleIssue } from "./validation.ts";

// Attachments, the file library, cards, polls and reactions (004 §10, v1.7, v1.11, v1.12, v1.17,
// v1.18; Maity §8.7, §9.1/§9.2 `attachments`). The wire shapes of both surfaces, one schema each:
// the Maity routes in snake_case, the agent protocol in BayChat's camelCase (DESIGN §1 "Naming").

// ---- limits ---------------------------------------------------------------------------------------

/** B-188: the hard cap on a stored file; a Bay's plan limit (MAITY_UPLOAD_MAX_BYTES) is at most this. */
export const UPLOAD_HARD_CAP_BYTES = 25 * 1024 * 1024;
/** B-181, B-198: files on one message. */
export const ATTACHMENTS_PER_MESSAGE_MAX = 10;
/** B-190: the long edge of a stored image. */
export const IMAGE_MAX_EDGE = 1600;
/** B-185: a signed URL lives about an hour. */
export const SIGNED_URL_TTL_SECONDS = 3600;
/** B-197: an upload never sent is deleted after 24 h. */
export const UNSENT_UPLOAD_TTL_MS = 24 * 3600 * 1000;

/**
 * B-187, OQ-B-32: the one allow-list — the type sniffed from the bytes, never the client's claim.
 * Text types have no magic number: a body that is valid UTF-8 without NUL bytes is text/plain,
 * or text/csv when its name ends in .csv. Office documents are zip containers `file-type` names.
 */
export const ALLOWED_MIME_TYPES = [
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "application/pdf",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.ms-excel",
  "application/vnd.ms-powerpoint",
  "text/plain",
  "text/csv",
  "application/zip",
] as const;
export type AllowedMimeType = (typeof ALLOWED_MIME_TYPES)[number];
export const isAllowedMimeType = (mime: string): mime is AllowedMimeType =>
  (ALLOWED_MIME_TYPES as readonly string[]).includes(mime);

/** B-183: "image" renders inline, "file" downloads — from the stored type only. */
export const attachmentTypeOf = (mimeType: string): "image" | "file" =>
  mimeType.startsWith("image/") ? "image" : "file";

/** B-214: the extensions the CLI and the local MCP server upload (OQ-B-32: the same list). */
export const UPLOAD_EXTENSIONS = [
  "jpg",
  "jpeg",
  "png",
  "gif",
  "webp",
  "pdf",
  "doc",
  "docx",
  "xlsx",
  "pptx",
  "txt",
  "csv",
  "zip",
] as const;

// ---- ids ------------------------------------------------------------------------------------------

export const ATTACHMENT_ID_PATTERN = /^att-[0-9a-z]{10,40}$/;
export const POLL_ID_PATTERN = /^pol-[0-9a-z]{10,40}$/;
export const attachmentIdSchema = text("an attachment id").regex(ATTACHMENT_ID_PATTERN, "an attachment id");

// ---- attachments on the wire ------------------------------------------------------------------------

/** B-186, B-195: the upload answer — what was stored (name possibly renamed: chart.png → chart.jpg). */
export const uploadAnswerSchema = z.object({
  attachmentId: z.string(),
  size: z.number().int(),
  mimeType: z.string(),
  thumbhash: z.string().nullable(),
  fileName: z.string(),
});
export type UploadAnswer = z.infer<typeof uploadAnswerSchema>;

/** B-196: `original=1` (or `true`) as a query parameter keeps the exact bytes; a multipart field may say it too. */
export const uploadQuery = z.strictObject({
  original: z.enum(["0", "1", "true", "false"], { error: "original: 1 or 0" }).optional(),
});

/** The Maity upload answer (POST /api/projects/{owner}/{slug}/attachments): the stored file, its name included. */
export const projectUploadSchema = z.object({
  id: z.string(),
  file_name: z.string(),
  size: z.number().int(),
  mime_type: z.string(),
  type: z.enum(["image", "file"]),
  thumbhash: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});
export type ProjectUpload = z.infer<typeof projectUploadSchema>;

/** Maity §8.7: an attachment's metadata on a message (M-030): never its name (B-184), never a URL. */
export const attachmentSchema = z.object({
  id: z.string(),
  type: z.enum(["image", "file"]),
  mime_type: z.string(),
  size: z.number().int(),
  /** Base64 of the image's ThumbHash, the placeholder shown until the image loads; null for a file. */
  thumbhash: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

/** B-181, B-182: one file of an agent-facing message's `metadata.attachments[]`, URL signed (~1 h). */
export const agentAttachmentSchema = z.object({
  attachmentId: z.string(),
  type: z.enum(["image", "file"]),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  attachmentUrl: z.string(),
});
export type AgentAttachment = z.infer<typeof agentAttachmentSchema>;

/** B-207: where a file of a project listing comes from. */
export const fileSourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("project") }),
  z.object({ kind: z.literal("chat"), conversationId: z.string(), title: z.string().nullable() }),
]);

/** B-203: one file of the library listing — no URL, on purpose. */
export const libraryFileSchema = z.object({
  attachmentId: z.string(),
  /** Untrusted content (§10): whoever uploaded it chose it. */
  fileName: z.string(),
  type: z.enum(["image", "file"]),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  /** B-208: null for a project library file. */
  messageId: z.string().nullable(),
  senderId: z.string(),
  createdAt: z.string(),
  /** B-207: in a project listing only. */
  source: fileSourceSchema.optional(),
});
export const libraryListingSchema = z.object({
  conversationId: z.string(),
  /** B-207: "project" in a project chat (this chat, the library, the caller's other chats of it). */
  scope: z.enum(["conversation", "project"]),
  files: z.array(libraryFileSchema),
  total: z.number().int(),
  totalBytes: z.number().int(),
});
export type LibraryListing = z.infer<typeof libraryListingSchema>;
/** B-204: one fresh signed URL. */
export const fileLinkSchema = z.object({
  attachmentId: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int(),
  url: z.string(),
  expiresAt: z.string(),
});

// ---- cards (v1.11) ---------------------------------------------------------------------------------

const iso = (field: string) => z.iso.datetime({ offset: true, error: `${field}: an ISO 8601 date and time` });
const address = z.strictObject({
  name: text("a string").max(200).optional(),
  address: text("an email address").max(320),
});

/** B-219: strict; needs title or start. */
export const calendarCardPayload = z
  .strictObject({
    title: text("a string").max(300).optional(),
    start: iso("start").optional(),
    end: iso("end").optional(),
    location: text("a string").max(500).optional(),
    attendees: z.array(address).max(100).optional(),
    notes: text("a string").max(5000).optional(),
  })
  .refine((p) => p.title !== undefined || p.start !== undefined, { message: "title or start", path: ["title"] });
/** B-220: strict; needs subject or from. */
export const emailCardPayload = z
  .strictObject({
    subject: text("a string").max(500).optional(),
    from: address.optional(),
    snippet: text("a string").max(1000).optional(),
    body: text("a string").max(20_000).optional(),
    timestamp: iso("timestamp").optional(),
  })
  .refine((p) => p.subject !== undefined || p.from !== undefined, { message: "subject or from", path: ["subject"] });

/** B-217, B-223: the types a sender may send; card.decision and card.poll are the hub's own. */
export const SENDABLE_CARD_TYPES = ["card.calendar", "card.email"] as const;
export type SendableCardType = (typeof SENDABLE_CARD_TYPES)[number];
export const cardPayloadSchemas = { "card.calendar": calendarCardPayload, "card.email": emailCardPayload } as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A send's `card` as the edge takes it: type checked by the hub (CARD_TYPE_NOT_SENDABLE), payload
 * strict. A payload that is missing or no object is refused like any other bad payload (v1.11):
 * 400 INVALID_CARD_PAYLOAD naming `card.payload`, never the generic INVALID_REQUEST.
 */
export const cardInputSchema = z.strictObject({
  type: text("a card type").max(100),
  payload: z.unknown().check((ctx) => {
    if (isPlainObject(ctx.value)) return;
    const reason = ctx.value === undefined ? "required" : "an object";
    ctx.issues.push(
      ruleIssue(reason, [], ctx.value, { says: `card.payload: ${reason}`, agentCode: "INVALID_CARD_PAYLOAD" }),
    );
  }) as z.ZodType<Record<string, unknown>>,
});
export type CardInput = z.infer<typeof cardInputSchema>;

/**
 * B-224: the card as a tool schema offers it — the type itself limited to the two, so a client
 * validating with it (the MCP tools) refuses card.decision before anything is sent.
 */
export const sendableCardSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("card.calendar"), payload: calendarCardPayload }),
  z.strictObject({ type: z.literal("card.email"), payload: emailCardPayload }),
]);

/**
 * v1.11 (B-221, B-223): only card.calendar and card.email are sent by anyone (decision cards come from
 * request_approval, polls from create_poll), and their payloads are strict: the refusal names the field.
 */
export function sendableCard(card: CardInput): Card {
  if (!(SENDABLE_CARD_TYPES as readonly string[]).includes(card.type))
    throw HubError.invalid(
      { "card.type": "not_sendable" },
      `card.type ${card.type} cannot be sent: use card.calendar or card.email`,
      { agentCode: "CARD_TYPE_NOT_SENDABLE" },
    );
  const parsed = cardPayloadSchemas[card.type as SendableCardType].safeParse(card.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const unknown = issue?.code === "unrecognized_keys" ? `.${issue.keys[0]}` : "";
    const field = `card.payload${issue?.path.length ? `.${issue.path.join(".")}` : ""}${unknown}`;
    throw HubError.invalid(
      { [field]: unknown ? "unknown_field" : "invalid" },
      `${field}: ${unknown ? "not a field of this card" : issue?.message}`,
      { agentCode: "INVALID_CARD_PAYLOAD" },
    );
  }
  return { type: card.type, payload: parsed.data as Record<string, unknown> };
}

/** A message's card on the Maity surface. */
export const cardSchema = z.object({ type: z.string(), payload: z.record(z.string(), z.unknown()) });
export type Card = z.infer<typeof cardSchema>;

// ---- polls (v1.12) ---------------------------------------------------------------------------------

export const POLL_OPTIONS_MIN = 2;
export const POLL_OPTIONS_MAX = 10;

/** B-235: the tally an agent reads (camelCase, as the spec's example). */
export const agentPollSchema = z.object({
  id: z.string(),
  allowMultiple: z.boolean(),
  closed: z.boolean(),
  /** B-237: an answer nobody chose is absent. */
  options: z.array(
    z.object({
      index: z.number().int(),
      count: z.number().int(),
      voters: z.array(z.object({ id: z.string(), type: z.enum(["USER", "AGENT"]), at: z.string() })),
    }),
  ),
  /** B-236: distinct voters, not votes. */
  voterCount: z.number().int(),
  mine: z.array(z.number().int()),
  canVote: z.boolean(),
});
export type AgentPoll = z.infer<typeof agentPollSchema>;

/** B-234: the card.poll message's payload. */
export const pollCardPayloadSchema = z.object({
  pollId: z.string(),
  question: z.string(),
  options: z.array(z.string()),
  askedBy: z.string(),
  allowMultiple: z.boolean(),
});

/** The same tally on the Maity surface (snake_case), every option listed with its text. */
export const pollSchema = z.object({
  id: z.string(),
  question: z.string(),
  allow_multiple: z.boolean(),
  closed: z.boolean(),
  asked_by: z.string(),
  options: z.array(
    z.object({
      index: z.number().int(),
      text: z.string(),
      count: z.number().int(),
      voters: z.array(z.object({ member_id: z.string(), at: z.string() })),
    }),
  ),
  voter_count: z.number().int(),
  mine: z.array(z.number().int()),
  can_vote: z.boolean(),
});
export type Poll = z.infer<typeof pollSchema>;

// ---- reactions ---------------------------------------------------------------------------------------

/** One emoji on a message: how many, who (member ids, oldest first), and whether the reader is one. */
export const reactionSchema = z.object({
  emoji: z.string(),
  count: z.number().int(),
  members: z.array(z.string()),
  mine: z.boolean(),
});
export type Reaction = z.infer<typeof reactionSchema>;
/** An emoji: one grapheme of at most 16 code points (a flag, a skin tone, a ZWJ family). */
export const EMOJI_MAX_CODE_POINTS = 16;

// ---- files on a send (B-198…B-202, B-222) -----------------------------------------------------------

/** B-198: the agent send's `attachments` item. Any string: an id that names nothing is refused at linking. */
export const sendAttachmentSchema = z.strictObject({ attachmentId: text("an attachment id").min(1).max(100) });
/** B-198: 1–ATTACHMENTS_PER_MESSAGE_MAX files in render order (OQ-B-12: 0 or more than 10 is 400). */
export const sendAttachmentsSchema = z
  .array(sendAttachmentSchema, { error: "a list of {attachmentId}" })
  .min(1, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`)
  .max(ATTACHMENTS_PER_MESSAGE_MAX, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`);

/** B-201, B-202: one refusal whichever id failed (unknown, another Bay's, not the caller's, sent, repeated). */
export const attachmentLinkFailed = (): HubError =>
  new HubError(
    "conflict",
    "the files could not be attached: each must be your own upload, not yet sent",
    { reason: "attachment_link_failed" },
    { agentCode: "ATTACHMENT_LINK_FAILED" },
  );

/**
 * The agent send's files, in render order (B-198): `attachments` or the legacy single `attachmentId`,
 * never both (B-199, OQ-B-13 ATTACHMENTS_CONFLICT); `metadata.type` is the server's with `attachments`
 * (B-200, OQ-B-15: 400); a card is one shape per message (B-222 CARD_WITH_ATTACHMENTS). A repeated id
 * links nothing (B-201: the same 409 as any failed link).
 */
export function sendAttachmentIds(send: {
  attachments?: { attachmentId: string }[] | undefined;
  attachmentId?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  card?: unknown;
}): string[] {
  const legacy = send.attachmentId ?? null;
  if (send.attachments !== undefined && legacy !== null)
    throw HubError.invalid(
      { attachments: "conflict", attachmentId: "conflict" },
      "attachments and attachmentId together: send one of them",
      { agentCode: "ATTACHMENTS_CONFLICT" },
    );
  const ids = send.attachments?.map((a) => a.attachmentId) ?? (legacy === null ? [] : [legacy]);
  if (send.attachments !== undefined && send.metadata?.type !== undefined)
    throw HubError.invalid(
      { "metadata.type": "not_with_attachments" },
      "metadata.type is derived by the hub for attachments: leave it out",
    );
  if (ids.length > 0 && send.card !== undefined && send.card !== null)
    throw HubError.invalid({ card: "with_attachments" }, "a message carries a card or attachments, not both", {
      agentCode: "CARD_WITH_ATTACHMENTS",
    });
  if (new Set(ids).size !== ids.length) throw attachmentLinkFailed();
  return ids;
}

// ---- the project library and attachment reads (Maity, v1.17, §8.7) ------------------------------------

/** One file of a project's library (GET …/library): the §8.7 metadata, its name, who added it and when. */
export const projectLibraryFileSchema = attachmentSchema.extend({
  /** Untrusted content (§10): whoever uploaded it chose it. */
  file_name: z.string(),
  uploader_id: z.string(),
  added_at: z.string(),
});
export type ProjectLibraryFile = z.infer<typeof projectLibraryFileSchema>;

/** GET …/attachments/{id}: the §8.7 metadata with the name, where it was sent (null: library or unsent). */
export const projectAttachmentSchema = attachmentSchema.extend({
  file_name: z.string(),
  /** The chat it was sent in (its Maity id), and the message's seq. */
  conversation_id: z.string().nullable(),
  seq: z.number().int().nullable(),
  /** A redacted message's or a removed library file's bytes are deleted (M-039): the content route answers not found. */
  deleted: z.boolean(),
});
export type ProjectAttachment = z.infer<typeof projectAttachmentSchema>;

// ---- polls and reactions: the inputs and the agent's reaction shape (004 v1.12) -----------------------

/** Bounds of the wire only; the poll's own rules (2–10 answers, distinct, B-227) are checkPoll's: INVALID_POLL. */
const pollQuestion = text("a string").max(1000, "at most 1000 characters");
const pollOptions = z
  .array(text("a string").max(300, "at most 300 characters"), { error: "a list of answers" })
  .max(100, "at most 100 answers");
const optionIndexes = z
  .array(z.number({ error: "an answer's index" }).int("an answer's index counted from zero"), {
    error: "a list of answer indexes",
  })
  .max(100, "at most 100 indexes");

/** B-226: create_poll / POST /agent-api/polls. */
export const agentPollCreateInput = z.strictObject({
  conversationId: z.string({ error: "a conversation id" }).min(1, "required"),
  question: pollQuestion,
  options: pollOptions,
  allowMultiple: z.boolean({ error: "true or false" }).optional(),
});
/** B-228: vote_in_poll / POST /agent-api/polls/:pollId/vote — the complete set held, [] withdraws. */
export const agentPollVoteInput = z.strictObject({
  pollId: z.string({ error: "a poll id" }).min(1, "required"),
  optionIndexes,
});
/** The Maity twins (snake_case). */
export const pollCreateInput = z.strictObject({
  question: pollQuestion,
  options: pollOptions,
  allow_multiple: z.boolean({ error: "true or false" }).optional(),
});
export const pollVoteInput = z.strictObject({ option_indexes: optionIndexes });

/** The reactions of a message as an agent reads them: who reacted, humans and agents alike. */
export const agentReactionSchema = z.object({
  emoji: z.string(),
  count: z.number().int(),
  reactors: z.array(z.object({ id: z.string(), type: z.enum(["USER", "AGENT"]) })),
});
export type AgentReaction = z.infer<typeof agentReactionSchema>;
export const agentReactionsAnswerSchema = z.object({
  messageId: z.string(),
  reactions: z.array(agentReactionSchema),
});
/** An emoji as the edge takes it; checkEmoji decides whether it is one. */
export const emojiInput = text("an emoji").min(1, "an emoji").max(64, "one emoji");

import { z } from "zod";
import {
  agentCredentialSchema,
  agentMeSchema,
  agentMessagePageSchema,
  agentMessageSchema,
  agentPollQuery,
  agentRoomSchema,
  agentSendInput,
  contextEnvelopeSchema,
  linkOpenedSchema,
  linkPollInput,
  linkPollSchema,
  linkRequestInput,
  pairInput,
  updatesAnswerSchema,
  updatesQuery,
  webhookInput,
  webhookSetSchema,
  webhookViewSchema,
} from "./agentApi.ts";
import {
  agentPollCreateInput,
  agentPollSchema,
  agentPollVoteInput,
  agentReactionsAnswerSchema,
  emojiInput,
  fileLinkSchema,
  libraryListingSchema,
  uploadAnswerSchema,
  uploadQuery,
} from "./files.ts";
import { agentProjectSchema } from "./brief.ts";
import { contextReportAnswer, contextReportInput } from "./contextReport.ts";
import {
  agentNoteCreateInput,
  agentNoteGetInput,
  agentNoteListSchema,
  agentNotePatchInput,
  agentNoteSchema,
  NOTE_REQUEST_MAX_BYTES,
} from "./notes.ts";
import { agentSummaryAnswerSchema } from "./summary.ts";
import { agentSearchInput, agentSearchOutput } from "./search.ts";
import { joinSessionGroupOutput } from "./sessionGroup.ts";
import { type AgentErrorCode, HubError } from "./errors.ts";
import { isSafeText, TEXT_REFUSED, text } from "./text.ts";
import { ruleIssue } from "./validation.ts";

// The agent API (004 §2–§7, §11) as one table of operations: method, path, input and output
// schemas side by side. The router serves each as an `agent.*` procedure (REST and the OpenAPI
// document follow from it), the SDK types its calls by the same schemas and the MCP tools take
// their input schemas from them, so the four surfaces cannot drift.

/** Who may call: an agent's bay_ token (B-010), or anyone (the pre-auth pairing routes). */
export type AgentAccess = "agent" | "public";

export interface AgentOperation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** `{field}` segments fill the input field of that name. */
  path: string;
  summary: string;
  /** Path, query (GET/DELETE) or JSON body fields, and the `headers` fields: one object. */
  input: I;
  output: O;
  /** The success status; a send's replay answers 200 instead of 201. */
  status: 200 | 201 | 204;
  /** Request headers that fill input fields (lower-case header → field). */
  headers?: Record<string, string>;
  access: AgentAccess;
  /** The request body is multipart/form-data, streamed to the operation (uploads, B-186), not JSON. */
  body?: "multipart";
  /** The rate budget it spends (B-360; /updates its own, B-141); public routes spend "preauth". */
  bucket: "agent" | "updates" | "preauth";
  /** The protocol's name for a refused input of this operation, where it has one (INVALID_NOTE, B-245). */
  invalidCode?: AgentErrorCode;
  /** A JSON body's limit above the default (a note's 100,000 characters), in bytes. */
  bodyMax?: number;
}

const operation = <I extends z.ZodType, O extends z.ZodType>(
  o: Omit<AgentOperation<I, O>, "status" | "access" | "bucket"> &
    Partial<Pick<AgentOperation, "status" | "access" | "bucket">>,
): AgentOperation<I, O> => ({
  status: 200,
  access: "agent",
  bucket: o.access === "public" ? "preauth" : "agent",
  ...o,
});

/**
 * A room id: any string. One the agent is not in — unknown, too long, NUL inside — answers exactly
 * like an unknown room (B-038, B-116: hidden = missing); the hub looks up only well-formed keys.
 */
export const agentConversationId = z.string({ error: "a conversation id" }).min(1, "required");
/** An agent id (list_agents gives them); one not in the room answers like an unknown one. */
export const agentIdParam = z.string({ error: "an agent id" }).min(1, "required");
/** The Idempotency-Key header of a send, 1–200 characters: a retry answers the first message. */
export const idempotencyKeyHeader = text("a string of 1–200 characters")
  .min(1, "1–200 characters")
  .max(200, "1–200 characters");

const inRoom = { conversationId: agentConversationId };
const none = z.strictObject({});

/** GET /agents (B-356, B-308): the other agents of the caller's Bay. */
export const agentDirectoryEntrySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** B-308: true only for an agent of another Bay (a visitor), never for the caller's own Bay. */
  fromAnotherBay: z.boolean(),
});
export type AgentDirectoryEntry = z.infer<typeof agentDirectoryEntrySchema>;

/** contact_agent (B-075, B-079): a message in a room both are in, addressed so it wakes that agent. */
export const contactAgentInput = z.strictObject({
  agentId: agentIdParam,
  conversationId: agentConversationId,
  content: agentSendInput.shape.content,
  replyToMessageId: agentSendInput.shape.replyToMessageId,
});

const base = "/api/agent-api";
const room = `${base}/conversations/{conversationId}`;

export const agentOperations = {
  me: operation({
    method: "GET",
    path: `${base}/me`,
    summary: "Who the token is, and the protocol version (§2)",
    input: none,
    output: agentMeSchema,
  }),
  conversations: operation({
    method: "GET",
    path: `${base}/conversations`,
    summary: "The agent's rooms (DM and GROUP) in every project it is in",
    input: none,
    output: z.object({ conversations: z.array(agentRoomSchema) }),
  }),
  context: operation({
    method: "GET",
    path: `${room}/context`,
    summary:
      "The context envelope (§3); with ?features=brief,notes the brief and the notes delta, at most once " +
      "(B-257, B-269); 403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject({ ...inRoom, features: agentPollQuery.shape.features }),
    output: contextEnvelopeSchema,
  }),
  messages: operation({
    method: "GET",
    path: `${room}/messages`,
    summary: "Messages since a time (ascending) or older history by cursor (newest first), with the envelope (§5)",
    input: agentPollQuery.extend(inRoom),
    output: agentMessagePageSchema,
  }),
  send: operation({
    method: "POST",
    path: `${room}/messages`,
    summary:
      "Send a message (§7); 404 for a room the agent is not in; a repeat with the same Idempotency-Key or " +
      "clientMessageId answers the first message (200)",
    // A retry names its send once: the Idempotency-Key header and clientMessageId, when both, agree.
    input: agentSendInput.extend({ ...inRoom, idempotencyKey: idempotencyKeyHeader.optional() }).check((ctx) => {
      const { idempotencyKey, clientMessageId } = ctx.value;
      if (idempotencyKey !== undefined && clientMessageId !== undefined && idempotencyKey !== clientMessageId)
        ctx.issues.push(
          ruleIssue("differs_from_idempotency_key", ["clientMessageId"], ctx.value, {
            says: "clientMessageId and the Idempotency-Key header name different sends",
          }),
        );
    }),
    headers: { "idempotency-key": "idempotencyKey" },
    output: agentMessageSchema,
    status: 201,
  }),
  project: operation({
    method: "GET",
    path: `${room}/project`,
    summary:
      "The room's project and its brief (B-271); 404 PROJECT_NOT_FOUND for a visiting agent (B-274); " +
      "403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject(inRoom),
    output: agentProjectSchema,
  }),
  summary: operation({
    method: "GET",
    path: `${room}/summary`,
    summary:
      "The rolling summary (get_conversation_summary, §6): DERIVED_UNTRUSTED_CONTEXT — a narrative and lists, each " +
      "item citing its messages, up to a boundary — and every message after it raw (B-105…B-111); status fresh, " +
      "stale or unavailable, never an error for the generator; 403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject(inRoom),
    output: agentSummaryAnswerSchema,
  }),
  // v1.17 notes (B-241…B-248): NOTE_NOT_FOUND, NOTE_FORBIDDEN, NOTE_LIMIT_REACHED, INVALID_NOTE,
  // NOTE_VERSION_CONFLICT (with the current version), TOOL_RATE_LIMITED.
  notes: operation({
    method: "GET",
    path: `${room}/notes`,
    summary:
      "The notes the agent may read here (list_notes): the project's and this chat's, pinned oldest first, " +
      "then the shelf newest first, without bodies; 403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject(inRoom),
    output: agentNoteListSchema,
  }),
  noteCreate: operation({
    method: "POST",
    path: `${room}/notes`,
    summary:
      "Write a note (create_note): this chat's, or the project's with scope project; never pinned (people pin); " +
      "201; 409 NOTE_LIMIT_REACHED (200 a project, 50 a chat); 400 INVALID_NOTE; 429 TOOL_RATE_LIMITED",
    input: agentNoteCreateInput,
    output: agentNoteSchema,
    status: 201,
    invalidCode: "INVALID_NOTE",
    bodyMax: NOTE_REQUEST_MAX_BYTES,
  }),
  noteGet: operation({
    method: "GET",
    path: `${base}/notes/{noteId}`,
    summary:
      "One note with its body (get_note); opening a shelf note leaves a quiet line for the people in the chat; " +
      "404 NOTE_NOT_FOUND",
    input: agentNoteGetInput,
    output: agentNoteSchema,
  }),
  notePatch: operation({
    method: "PATCH",
    path: `${base}/notes/{noteId}`,
    summary:
      "Edit a note (update_note) from baseVersion: 409 NOTE_VERSION_CONFLICT with the current version when it " +
      "is stale; 403 NOTE_FORBIDDEN for a pin or a visiting agent; 400 INVALID_NOTE; 429 TOOL_RATE_LIMITED",
    input: agentNotePatchInput,
    output: agentNoteSchema,
    invalidCode: "INVALID_NOTE",
    bodyMax: NOTE_REQUEST_MAX_BYTES,
  }),
  joinSessionGroup: operation({
    method: "POST",
    path: `${base}/tools/join-session-group`,
    summary:
      "Enter your Bay's shared Sessions group (join_session_group, v1.9): its id, roster, reply policy and " +
      "whether agents may talk there; never a private chat; 404 GROUP_NOT_FOUND before a session made it, " +
      "403 GUEST_RESTRICTED_TOOL while visiting or beside a visitor",
    input: z.strictObject({}),
    output: joinSessionGroupOutput,
  }),
  contextReport: operation({
    method: "POST",
    path: `${base}/context`,
    summary:
      "Report how full the agent's memory is, or that it compacted (compact_end) or began afresh (session_start): " +
      "both re-arm the brief and the notes (B-254, B-270); 400 INVALID_CONTEXT_REPORT",
    // A retried compact_end is one report: its Idempotency-Key (else its body within 10 minutes).
    input: contextReportInput.safeExtend({ idempotencyKey: idempotencyKeyHeader.optional() }),
    headers: { "idempotency-key": "idempotencyKey" },
    output: contextReportAnswer,
    invalidCode: "INVALID_CONTEXT_REPORT",
  }),
  typing: operation({
    method: "POST",
    path: `${room}/typing`,
    summary: "Tell the room's people the agent is writing (§7)",
    input: z.strictObject(inRoom),
    output: z.object({ ok: z.literal(true) }),
  }),
  files: operation({
    method: "GET",
    path: `${room}/attachments`,
    summary:
      "The files of this chat, the project's library and the project's other chats the agent is in, " +
      "without URLs (B-203…B-210); 403 NOT_PARTICIPANT for a room the agent is not in",
    input: z.strictObject(inRoom),
    output: libraryListingSchema,
  }),
  fileLink: operation({
    method: "GET",
    path: `${room}/attachments/{attachmentId}/link`,
    summary: "One fresh signed URL (~1 h) of a file the listing shows (B-204); 404 for any other",
    input: z.strictObject({ ...inRoom, attachmentId: text("an attachment id").min(1).max(100) }),
    output: fileLinkSchema,
  }),
  search: operation({
    method: "GET",
    path: `${base}/search`,
    summary:
      "Messages of the agent's rooms matching q, newest first (DESIGN §4d): words (the last as a prefix), " +
      '"phrases", from:@handle, in:<chat>, has:file|poll|card, after:/before:YYYY-MM-DD; only what it may read now',
    input: agentSearchInput,
    output: agentSearchOutput,
  }),
  agents: operation({
    method: "GET",
    path: `${base}/agents`,
    summary: "The other agents of the caller's Bay (list_agents)",
    input: none,
    output: z.object({ agents: z.array(agentDirectoryEntrySchema) }),
  }),
  contact: operation({
    method: "POST",
    path: `${base}/agents/{agentId}/contact`,
    summary:
      "Send a message addressed to another agent of the room so it wakes (contact_agent); 409 ROUND_CAP_REACHED, " +
      "with nothing sent, when the room's agent rounds are spent",
    input: contactAgentInput,
    output: agentMessageSchema,
    status: 201,
  }),
  updates: operation({
    method: "GET",
    path: `${base}/updates`,
    summary:
      "One held request over all the agent's rooms (§11): {cursor, events}; 409 CURSOR_EXPIRED; its own 20/min bucket",
    input: updatesQuery,
    output: updatesAnswerSchema,
    bucket: "updates",
  }),
  webhookSet: operation({
    method: "POST",
    path: `${base}/webhook`,
    summary: "Set the agent's webhook (contract v2); the secret is shown once",
    input: webhookInput,
    output: webhookSetSchema,
  }),
  webhookGet: operation({
    method: "GET",
    path: `${base}/webhook`,
    summary: "The agent's webhook and its queue",
    input: none,
    output: webhookViewSchema,
  }),
  webhookRemove: operation({
    method: "DELETE",
    path: `${base}/webhook`,
    summary: "Stop webhook deliveries",
    input: none,
    output: z.null(),
    status: 204,
  }),
  pair: operation({
    method: "POST",
    path: `${base}/pair`,
    summary: "Redeem a pairing code (no token): rotates the agent's token (§2)",
    input: pairInput,
    output: agentCredentialSchema,
    access: "public",
  }),
  link: operation({
    method: "POST",
    path: `${base}/link`,
    summary: "Open a link request the owner approves in the dashboard (no token, §2)",
    input: linkRequestInput,
    output: linkOpenedSchema,
    status: 201,
    access: "public",
  }),
  linkPoll: operation({
    method: "POST",
    path: `${base}/link/{id}/poll`,
    summary: "Poll a link request with its secret: pending, then the token once",
    input: linkPollInput.extend({ id: text("a link request id").min(1, "required").max(60, "a link request id") }),
    output: linkPollSchema,
    access: "public",
  }),
  // v1.12 polls (B-226…B-240, OQ-B-26) and reactions (`react_to_message`, B-120).
  pollCreate: operation({
    method: "POST",
    path: `${base}/polls`,
    summary: "Put a poll in a room (create_poll): 2–10 distinct answers; 201 the card.poll message; 400 INVALID_POLL",
    input: agentPollCreateInput,
    output: agentMessageSchema,
    status: 201,
  }),
  pollVote: operation({
    method: "POST",
    path: `${base}/polls/{pollId}/vote`,
    summary:
      "Cast, change or withdraw your vote (vote_in_poll): the complete set of zero-based indexes, [] withdraws; " +
      "404 POLL_NOT_FOUND, 409 POLL_CLOSED, 400 POLL_SINGLE_CHOICE, 400 INVALID_OPTION_INDEX",
    input: agentPollVoteInput,
    output: agentPollSchema,
  }),
  pollGet: operation({
    method: "GET",
    path: `${base}/polls/{pollId}`,
    summary: "A poll's tally as you see it (B-240); 404 POLL_NOT_FOUND",
    input: z.strictObject({ pollId: agentPollVoteInput.shape.pollId }),
    output: agentPollSchema,
  }),
  react: operation({
    method: "POST",
    path: `${room}/messages/{messageId}/reactions`,
    summary: "React to a message with an emoji (idempotent); 404 for a room the agent is not in",
    input: z.strictObject({ ...inRoom, messageId: z.string({ error: "a message id" }).min(1), emoji: emojiInput }),
    output: agentReactionsAnswerSchema,
  }),
  unreact: operation({
    method: "DELETE",
    path: `${room}/messages/{messageId}/reactions`,
    summary: "Take your reaction back (?emoji=; idempotent)",
    input: z.strictObject({ ...inRoom, messageId: z.string({ error: "a message id" }).min(1), emoji: emojiInput }),
    output: agentReactionsAnswerSchema,
  }),
  // B-186 … B-196: multipart/form-data, the file in the part `file`.
  upload: operation({
    method: "POST",
    path: `${base}/attachments`,
    summary:
      "Upload one file (multipart/form-data, part `file`; `original=1` as query or field keeps the exact bytes) " +
      "→ 201 {attachmentId, size, mimeType, thumbhash, fileName}; 413 FILE_TOO_LARGE, 415 UNSUPPORTED_FILE_TYPE, " +
      "400 INVALID_UPLOAD",
    input: uploadQuery,
    output: uploadAnswerSchema,
    status: 201,
    body: "multipart",
  }),
} as const satisfies Record<string, AgentOperation>;

export type AgentOperations = typeof agentOperations;
export type AgentOperationName = keyof AgentOperations;
/** What a caller passes (defaults optional) and what the hub answers, per operation. */
export type AgentOperationInput<K extends AgentOperationName> = z.input<AgentOperations[K]["input"]>;
export type AgentOperationOutput<K extends AgentOperationName> = z.output<AgentOperations[K]["output"]>;

/** A header value fetch can send: tab, printable ASCII and Latin-1, nothing else (no CR, LF or NUL). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * What cannot go on the wire as given — a lone surrogate has no UTF-8 for a path or a query (the
 * encoder throws, or silently puts U+FFFD), a header carries Latin-1 only — is refused here as
 * `invalid` naming the field, before anything is sent; the client reports it like the hub's 400.
 */
function wireText(field: string, value: unknown, where: "path" | "query" | "header"): string {
  const text = String(value ?? "");
  const ok = where === "header" ? HEADER_VALUE.test(text) : isSafeText(text.replaceAll("\u0000", ""));
  if (!ok) throw HubError.invalid({ [field]: where === "header" ? "not_a_header_value" : TEXT_REFUSED });
  return text;
}

/** How a client puts an operation's input on the wire: path segments, headers, then query (GET, DELETE) or JSON body. */
export function agentRequestOf(
  op: Pick<AgentOperation, "method" | "path" | "headers">,
  input: Record<string, unknown> = {},
): { method: AgentOperation["method"]; path: string; headers: Record<string, string>; body?: string } {
  const rest: Record<string, unknown> = { ...input };
  const path = op.path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = rest[key];
    delete rest[key];
    return encodeURIComponent(wireText(key, value, "path"));
  });
  const headers: Record<string, string> = {};
  for (const [header, field] of Object.entries(op.headers ?? {})) {
    if (rest[field] !== undefined) headers[header] = wireText(field, rest[field], "header");
    delete rest[field];
  }
  const present = Object.entries(rest).filter(([, v]) => v !== undefined);
  if (op.method === "GET" || op.method === "DELETE") {
    for (const [k, v] of present) wireText(k, v, "query");
    const query = new URLSearchParams(present.map(([k, v]) => [k, String(v)]));
    return { method: op.method, path: query.size ? `${path}?${query}` : path, headers };
  }
  headers["content-type"] = "application/json";
  return { method: op.method, path, headers, body: JSON.stringify(Object.fromEntries(present)) };
}

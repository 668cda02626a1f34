import {
  type AgentErrorCode,
  type HubError as HubErrorType,
  type HubErrorCode,
  hubErrorStatus,
  isHubError,
  refusalOf,
  renderMaityError,
} from "@maity/domain";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";

// How a refusal reads on the wire: the Maity routes' `{error: {code, message, details}}` (DESIGN §4)
// or the agent protocol's `{error: "<message>", code: "<CODE>"}` (004 §11) with its named codes.

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: status === 204 ? headers : { "content-type": "application/json; charset=utf-8", ...headers },
  });

/** The hub's error a procedure threw, its refused input named; null for an error nobody meant. */
export function toHubError(error: unknown, input?: unknown): HubErrorType | null {
  if (isHubError(error)) return error;
  if (error instanceof TRPCError) {
    if (isHubError(error.cause)) return error.cause;
    if (error.cause instanceof ZodError) return refusalOf(error.cause, input);
  }
  return null;
}

/** A rate budget's refusal says when to come back (429 Retry-After). */
const retryAfterOf = (error: HubErrorType): Record<string, string> =>
  error.code === "rate_limited" && typeof error.details.retry_after === "number"
    ? { "retry-after": String(error.details.retry_after) }
    : {};

export function errorResponse(error: unknown, input?: unknown): Response {
  const hub = toHubError(error, input);
  if (hub) return json(hubErrorStatus[hub.code], renderMaityError(hub), retryAfterOf(hub));
  console.error(error);
  return json(500, { error: { code: "internal", message: "internal error", details: {} } });
}

export const agentRefusal = (
  status: number,
  code: string,
  error: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response => json(status, { error, code, ...extra }, headers);

/** How one refusal reads on the agent wire, beyond `{error: <message>, code, fields?}`. */
interface AgentWire {
  /** The protocol's fixed words, where it writes them (004 §11), instead of the hub's message. */
  message?: (error: HubErrorType) => string;
  /** The fields the protocol names (`false`: none), instead of the hub's `details.fields`. */
  fields?: false | (() => Record<string, string>);
  /** More members of the body. */
  extra?: (error: HubErrorType) => Record<string, unknown>;
}

/**
 * The agent protocol's name of each hub code (004 §11), for a refusal the protocol does not name
 * itself; the status is always the hub code's (hubErrorStatus).
 */
const AGENT_CODE_OF: Record<HubErrorCode, { code: string } & AgentWire> = {
  invalid: { code: "INVALID_REQUEST" },
  // B-010/B-011: one answer for a missing, unknown, revoked or non-agent credential.
  unauthenticated: { code: "UNAUTHORIZED", message: () => "missing or invalid agent token", fields: false },
  forbidden: { code: "FORBIDDEN" },
  not_found: { code: "NOT_FOUND" },
  method_not_allowed: { code: "METHOD_NOT_ALLOWED" },
  conflict: { code: "CONFLICT" },
  version_conflict: { code: "NOTE_VERSION_CONFLICT", extra: (e) => ({ version: e.details.version }) },
  note_limit: { code: "NOTE_LIMIT_REACHED", extra: (e) => ({ limit: e.details.limit }) },
  conversation_closed: { code: "CONVERSATION_CLOSED" },
  conversation_quota: { code: "CONVERSATION_QUOTA" },
  project_closed: { code: "PROJECT_CLOSED" },
  too_large: {
    code: "BODY_TOO_LARGE",
    message: (e) => `the body is over ${e.details.limit} bytes`,
    fields: false,
    extra: (e) => ({ limit: e.details.limit }),
  },
  unsupported_media_type: { code: "UNSUPPORTED_MEDIA_TYPE" },
  // A limit of the hub's own (the ping rate) says which and how much; the API's budgets are named below.
  rate_limited: { code: "RATE_LIMITED", extra: (e) => ({ details: e.details }) },
};

/** The refusals the protocol names itself (HubError.agentCode, set where the refusal is made). */
const AGENT_NAMED: Record<AgentErrorCode, AgentWire> = {
  NOT_PARTICIPANT: {}, // B-038, B-100
  CURSOR_EXPIRED: {}, // B-138
  ROUND_CAP_REACHED: { fields: false, extra: (e) => ({ maxAgentRounds: e.details.maxAgentRounds }) }, // B-075
  INVALID_JSON: { message: () => "the body is not valid JSON", fields: () => ({ body: "invalid_json" }) },
  // B-126: the protocol's field is replyToMessageId (send and contact_agent alike).
  INVALID_REPLY_TARGET: {
    message: () => "replyToMessageId names no message of this conversation",
    fields: () => ({ replyToMessageId: "not_in_conversation" }),
  },
  RESERVED_MESSAGE_TYPE: {}, // B-118, OQ-B-13
  IDEMPOTENCY_KEY_REUSED: {},
  INVALID_PAIRING_CODE: { fields: false },
  // The budgets of B-360 and B-141, and the pre-auth routes' per address: Retry-After says when.
  RATE_LIMITED: { fields: false },
  UPDATES_RATE_LIMITED: { fields: false },
  FILE_TOO_LARGE: {},
  IMAGE_TOO_LARGE: {},
  UNSUPPORTED_FILE_TYPE: {},
  INVALID_UPLOAD: {},
  POLL_NOT_FOUND: {},
  POLL_CLOSED: {},
  INVALID_POLL: {},
  POLL_SINGLE_CHOICE: {},
  INVALID_OPTION_INDEX: {},
  MESSAGE_DELETED: {},
  CARD_TYPE_NOT_SENDABLE: {},
  INVALID_CARD_PAYLOAD: {},
  ATTACHMENT_LINK_FAILED: {},
  ATTACHMENTS_CONFLICT: {},
  CARD_WITH_ATTACHMENTS: {},
  PROJECT_NOT_FOUND: {}, // B-271, B-274
  // Notes (004 v1.17, B-244…B-246): a conflict names the current version, a full shelf its limit.
  NOTE_NOT_FOUND: { fields: false },
  NOTE_FORBIDDEN: { fields: false },
  NOTE_LIMIT_REACHED: { fields: false, extra: (e) => ({ limit: e.details.limit }) },
  INVALID_NOTE: {},
  NOTE_VERSION_CONFLICT: { fields: false, extra: (e) => ({ version: e.details.version }) },
  TOOL_RATE_LIMITED: { fields: false },
  INVALID_CONTEXT_REPORT: {}, // B-276
  // Terminal sessions (DESIGN §4e): an ambiguous title names the ids to pass instead (B-316).
  SESSION_NOT_FOUND: { fields: false },
  SESSION_NAME_TAKEN: {},
  GROUP_NOT_FOUND: { fields: false }, // B-315
  GROUP_AMBIGUOUS: { fields: false, extra: (e) => ({ ids: e.details.ids }) }, // B-316
  GROUP_TITLE_IS_ID: {}, // B-318
  GUEST_RESTRICTED_TOOL: { fields: false }, // B-304
  APPROVAL_NOT_FOUND: { fields: false },
  HANDOFF_NOTE_INVALID: { fields: false, extra: (e) => ({ reason: e.details.reason }) }, // B-291
};

/** The hub's error in the protocol's words: the name it carries, else its code's (the two tables above). */
export function renderAgentError(error: HubErrorType): Response {
  const named = error.agentCode;
  const wire: { code: string } & AgentWire = named ? { code: named, ...AGENT_NAMED[named] } : AGENT_CODE_OF[error.code];
  const fields = wire.fields === false ? undefined : wire.fields ? wire.fields() : error.details.fields;
  const body = {
    ...(fields ? { fields } : {}),
    ...(wire.extra ? wire.extra(error) : {}),
  };
  return agentRefusal(
    hubErrorStatus[error.code],
    wire.code,
    wire.message?.(error) ?? error.message,
    body,
    retryAfterOf(error),
  );
}

/** `invalidCode`: the operation's own name for a refused input (INVALID_NOTE), where the refusal names none. */
export function agentErrorResponse(error: unknown, input?: unknown, invalidCode?: AgentErrorCode): Response {
  const hub = toHubError(error, input);
  if (hub)
    return renderAgentError(hub.code === "invalid" && !hub.agentCode && invalidCode ? hub.named(invalidCode) : hub);
  console.error(error);
  return agentRefusal(500, "INTERNAL", "internal error");
}

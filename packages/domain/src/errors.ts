// One error model for every surface (DESIGN.md §4); each surface renders it.
export const hubErrorStatus = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  /** A route or procedure that exists, called with another method (REST 405, tRPC METHOD_NOT_SUPPORTED). */
  method_not_allowed: 405,
  conflict: 409,
  /** A note edited from a version that is no longer current (DESIGN §4b); `details.version` is the current one. */
  version_conflict: 409,
  /** A project or chat holds as many notes as it may (DESIGN §4b, B-245). */
  note_limit: 409,
  conversation_closed: 409,
  conversation_quota: 409,
  project_closed: 409,
  /** A request body over its route's limit (read no further); `details.limit` names it. */
  too_large: 413,
  /** A cookie-authenticated change that is not JSON (CSRF: a cross-site text/plain form needs no preflight). */
  unsupported_media_type: 415,
  rate_limited: 429,
} as const;

export type HubErrorCode = keyof typeof hubErrorStatus;

/**
 * The refusals the agent protocol names itself (004 §7, §10, §11; v1.11 cards, v1.12 polls), set on
 * the HubError where the refusal is made (`agentCode`). Every other refusal reads on the agent wire
 * as its hub code's name (api/src/rest/errors.ts keeps the one table of both).
 */
export const AGENT_ERROR_CODES = [
  "NOT_PARTICIPANT",
  "CURSOR_EXPIRED",
  "ROUND_CAP_REACHED",
  "INVALID_JSON",
  "INVALID_REPLY_TARGET",
  "RESERVED_MESSAGE_TYPE",
  "IDEMPOTENCY_KEY_REUSED",
  "INVALID_PAIRING_CODE",
  "RATE_LIMITED",
  "UPDATES_RATE_LIMITED",
  "FILE_TOO_LARGE",
  "IMAGE_TOO_LARGE",
  "UNSUPPORTED_FILE_TYPE",
  "INVALID_UPLOAD",
  "POLL_NOT_FOUND",
  "POLL_CLOSED",
  "INVALID_POLL",
  "POLL_SINGLE_CHOICE",
  "INVALID_OPTION_INDEX",
  "MESSAGE_DELETED",
  "CARD_TYPE_NOT_SENDABLE",
  "INVALID_CARD_PAYLOAD",
  "ATTACHMENT_LINK_FAILED",
  "ATTACHMENTS_CONFLICT",
  "CARD_WITH_ATTACHMENTS",
  "PROJECT_NOT_FOUND",
  "NOTE_NOT_FOUND",
  "NOTE_FORBIDDEN",
  "NOTE_LIMIT_REACHED",
  "INVALID_NOTE",
  "NOTE_VERSION_CONFLICT",
  "TOOL_RATE_LIMITED",
  "INVALID_CONTEXT_REPORT",
  // Terminal sessions (DESIGN §4e, B-310…B-331) and fresh starts (B-291).
  "SESSION_NOT_FOUND",
  "SESSION_NAME_TAKEN",
  "GROUP_NOT_FOUND",
  "GROUP_AMBIGUOUS",
  "GROUP_TITLE_IS_ID",
  "GUEST_RESTRICTED_TOOL",
  "APPROVAL_NOT_FOUND",
  "HANDOFF_NOTE_INVALID",
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

export interface HubErrorOptions {
  /** The agent protocol's own name for this refusal, when it has one (AGENT_ERROR_CODES). */
  agentCode?: AgentErrorCode;
}

export type HubErrorDetails = {
  fields?: Record<string, string>;
  reason?: string;
  [key: string]: unknown;
};

// A brand as well as the class: recognised even across two copies of this module (the app server
// once had two module graphs; it has one now, and the brand costs nothing).
const BRAND = Symbol.for("maity.HubError");

export class HubError extends Error {
  readonly [BRAND] = true;
  readonly code: HubErrorCode;
  readonly details: HubErrorDetails;
  readonly agentCode: AgentErrorCode | undefined;
  constructor(code: HubErrorCode, message: string, details: HubErrorDetails = {}, options: HubErrorOptions = {}) {
    super(message);
    this.name = "HubError";
    this.code = code;
    this.details = details;
    this.agentCode = options.agentCode;
  }
  get status(): number {
    return hubErrorStatus[this.code];
  }

  static invalid(fields: Record<string, string>, message?: string, options: HubErrorOptions = {}): HubError {
    const names = Object.keys(fields).join(", ");
    return new HubError("invalid", message ?? `invalid input: ${names}`, { fields }, options);
  }
  /** The same refusal under the agent protocol's own name. */
  named(agentCode: AgentErrorCode): HubError {
    return new HubError(this.code, this.message, this.details, { agentCode });
  }
  /** Hidden answers exactly like missing (DESIGN.md §4). */
  static notFound(what = "not found"): HubError {
    return new HubError("not_found", what);
  }
  static forbidden(reason: string, message?: string, options: HubErrorOptions = {}): HubError {
    return new HubError("forbidden", message ?? `forbidden: ${reason}`, { reason }, options);
  }
  static unauthenticated(): HubError {
    return new HubError("unauthenticated", "missing or invalid credentials");
  }
}

export function isHubError(error: unknown): error is HubError {
  return typeof error === "object" && error !== null && (error as { [BRAND]?: boolean })[BRAND] === true;
}

/** The details as the Maity routes and tRPC show them: the agent protocol's name too, where it has one. */
export const wireDetails = (error: HubError): HubErrorDetails =>
  error.agentCode ? { ...error.details, agent_code: error.agentCode } : error.details;

/** The Maity wire form: {"error": {"code", "message", "details"}}. */
export function renderMaityError(error: HubError): {
  error: { code: string; message: string; details: HubErrorDetails };
} {
  return { error: { code: error.code, message: error.message, details: wireDetails(error) } };
}

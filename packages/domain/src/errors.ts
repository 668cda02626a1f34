// One error model for every surface (DESIGN.md §4); each surface renders it.
export const hubErrorStatus = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  /** A route or procedure that exists, called with another method (REST 405, tRPC METHOD_NOT_SUPPORTED). */
  method_not_allowed: 405,
  conflict: 409,
  conversation_closed: 409,
  conversation_quota: 409,
  project_closed: 409,
  /** A request body over its route's limit (issue 13 #2); `details.limit` names it. */
  too_large: 413,
  /** A cookie-authenticated change that is not JSON (issue 13 #6: cross-site text/plain forms). */
  unsupported_media_type: 415,
  rate_limited: 429,
} as const;

export type HubErrorCode = keyof typeof hubErrorStatus;

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
  constructor(code: HubErrorCode, message: string, details: HubErrorDetails = {}) {
    super(message);
    this.name = "HubError";
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return hubErrorStatus[this.code];
  }

  static invalid(fields: Record<string, string>, message?: string): HubError {
    const names = Object.keys(fields).join(", ");
    return new HubError("invalid", message ?? `invalid input: ${names}`, { fields });
  }
  /** Hidden answers exactly like missing (DESIGN.md §4). */
  static notFound(what = "not found"): HubError {
    return new HubError("not_found", what);
  }
  static forbidden(reason: string, message?: string): HubError {
    return new HubError("forbidden", message ?? `forbidden: ${reason}`, { reason });
  }
  static unauthenticated(): HubError {
    return new HubError("unauthenticated", "missing or invalid credentials");
  }
}

export function isHubError(error: unknown): error is HubError {
  return typeof error === "object" && error !== null && (error as { [BRAND]?: boolean })[BRAND] === true;
}

/** The Maity wire form: {"error": {"code", "message", "details"}}. */
export function renderMaityError(error: HubError): {
  error: { code: string; message: string; details: HubErrorDetails };
} {
  return { error: { code: error.code, message: error.message, details: error.details } };
}

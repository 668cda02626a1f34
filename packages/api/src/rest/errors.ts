import {
  fieldsOf,
  type HubError as HubErrorType,
  HubError,
  hubErrorStatus,
  isHubError,
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
    if (error.cause instanceof ZodError) return HubError.invalid(fieldsOf(error.cause, input));
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

/** The hub's error in the protocol's words: its code upper-cased, and the named refusals of §2, §7, §11. */
export function renderAgentError(error: HubErrorType): Response {
  const fields = error.details.fields;
  const reason = error.details.reason;
  const headers = retryAfterOf(error);
  // B-010/B-011: one answer for a missing, unknown, revoked or non-agent credential.
  if (error.code === "unauthenticated") return agentRefusal(401, "UNAUTHORIZED", "missing or invalid agent token");
  if (error.code === "forbidden" && reason === "not_participant")
    return agentRefusal(403, "NOT_PARTICIPANT", error.message); // B-038, B-100
  if (error.code === "conflict" && reason === "cursor_expired")
    return agentRefusal(409, "CURSOR_EXPIRED", "cursor_expired"); // B-138
  if (error.code === "conflict" && reason === "round_cap_reached")
    return agentRefusal(409, "ROUND_CAP_REACHED", error.message, { maxAgentRounds: error.details.maxAgentRounds }); // B-075
  // Issue 16: an upload's refusals name themselves (FILE_TOO_LARGE, IMAGE_TOO_LARGE), below.
  if (error.code === "too_large" && typeof error.details.agent_code !== "string")
    return agentRefusal(413, "BODY_TOO_LARGE", `the body is over ${error.details.limit} bytes`, {
      limit: error.details.limit,
    });
  if (fields?.body === "not_json")
    return agentRefusal(400, "INVALID_JSON", "the body is not valid JSON", { fields: { body: "invalid_json" } });
  if (fields?.reply_to)
    return agentRefusal(400, "INVALID_REPLY_TARGET", "replyToMessageId names no message of this conversation"); // B-126
  if (fields?.["metadata.type"] === "reserved")
    return agentRefusal(400, "RESERVED_MESSAGE_TYPE", error.message, { fields }); // B-118, OQ-B-13
  if (fields?.idempotency_key === "reused_with_other_body")
    return agentRefusal(409, "IDEMPOTENCY_KEY_REUSED", error.message, { fields });
  if (fields?.code === "invalid_or_expired") return agentRefusal(400, "INVALID_PAIRING_CODE", error.message);
  // A refusal the protocol names itself (v1.11 cards: CARD_TYPE_NOT_SENDABLE, INVALID_CARD_PAYLOAD).
  if (typeof error.details.agent_code === "string")
    return agentRefusal(error.status, error.details.agent_code, error.message, fields ? { fields } : {});
  // The budgets of B-360 and B-141, and the pre-auth routes' per address: the code says which.
  const limit = error.code === "rate_limited" ? error.details.limit : undefined;
  if (limit === "updates") return agentRefusal(429, "UPDATES_RATE_LIMITED", error.message, {}, headers);
  if (limit === "agent" || limit === "preauth") return agentRefusal(429, "RATE_LIMITED", error.message, {}, headers);
  const code = error.code === "invalid" ? "INVALID_REQUEST" : error.code.toUpperCase();
  const extra: Record<string, unknown> = fields ? { fields } : {};
  if (error.code === "rate_limited") extra.details = error.details;
  return agentRefusal(error.status, code, error.message, extra, headers);
}

export function agentErrorResponse(error: unknown, input?: unknown): Response {
  const hub = toHubError(error, input);
  if (hub) return renderAgentError(hub);
  console.error(error);
  return agentRefusal(500, "INTERNAL", "internal error");
}

import { type HubError, isHubError } from "@maity/domain";
import { CursorExpired, type Hub } from "@maity/hub";
import { decodeSegment } from "../edge.ts";
import { callerFromRequest } from "../session.ts";
import { conversationRoutes } from "./conversations.ts";
import { type AgentRoute, clientAddress, refuse } from "./http.ts";
import { pairingRoutes } from "./pairing.ts";
import { updatesRoutes } from "./updates.ts";
import { webhookRoutes } from "./webhook.ts";

// The agent protocol's HTTP surface (004 §11) under /api/agent-api, over the same hub services as
// the Maity routes (DESIGN §1). Each file holds one part of the protocol; this one routes,
// authenticates, spends the rate budgets (B-360; /updates its own, B-141) and maps errors.

export { PROTOCOL_VERSION } from "@maity/domain";

export const agentRoutes: AgentRoute[] = [...conversationRoutes, ...updatesRoutes, ...webhookRoutes, ...pairingRoutes];
const routes = agentRoutes;

/** The hub's error in the protocol's words: its code upper-cased, and the named refusals of §7/§2. */
function renderError(error: HubError): Response {
  const fields = error.details.fields;
  if (fields?.reply_to) return refuse(400, "INVALID_REPLY_TARGET", "replyToMessageId names no message of this conversation"); // B-126
  if (fields?.["metadata.type"] === "reserved") return refuse(400, "RESERVED_MESSAGE_TYPE", error.message, { fields }); // B-118, OQ-B-13
  if (fields?.idempotency_key === "reused_with_other_body") return refuse(409, "IDEMPOTENCY_KEY_REUSED", error.message, { fields });
  if (fields?.idempotency_key) return refuse(400, "INVALID_REQUEST", error.message, { fields });
  if (fields?.code === "invalid_or_expired") return refuse(400, "INVALID_PAIRING_CODE", error.message);
  const code = error.code === "invalid" ? "INVALID_REQUEST" : error.code.toUpperCase();
  const extra: Record<string, unknown> = fields ? { fields } : {};
  if (error.code === "rate_limited") extra.details = error.details;
  return refuse(error.status, code, error.message, extra);
}

export async function handleAgentApi(hub: Hub, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.replace(/\/+$/, "");
  const candidates = routes.filter((r) => r.path.test(path));
  if (!candidates.length) return refuse(404, "NOT_FOUND", "no such route");
  const route = candidates.find((r) => r.method === req.method);
  if (!route) return refuse(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed here`, {}, { allow: candidates.map((r) => r.method).join(", ") });
  const match = route.path.exec(path) as RegExpExecArray;
  try {
    if (route.auth === false) {
      // Pre-auth routes guess at codes: a budget per client address.
      const wait = hub.limits.take("preauth", clientAddress(req));
      if (wait !== null) return refuse(429, "RATE_LIMITED", "too many attempts; wait and try again", {}, { "retry-after": String(wait) });
      return await route.handler({ hub, req, url, match });
    }
    // B-010/B-011: a bay_ agent token, nothing else; missing, unknown or revoked answer the same 401.
    const { caller } = await callerFromRequest(hub, req);
    if (caller?.kind !== "agent") return refuse(401, "UNAUTHORIZED", "missing or invalid agent token");
    // Issue 13 #4: a room id with malformed percent-encoding is a 400 naming the path, not a 500.
    for (const raw of match.slice(1)) decodeSegment(raw ?? "", "path");
    const bucket = route.bucket ?? "agent";
    const wait = hub.limits.take(bucket, caller.id);
    if (wait !== null)
      return bucket === "updates"
        ? refuse(429, "UPDATES_RATE_LIMITED", `over ${hub.limits.settings.updates} /updates calls a minute; back off the poll loop`, {}, { "retry-after": String(wait) })
        : refuse(429, "RATE_LIMITED", `over ${hub.limits.settings.agent} requests a minute`, {}, { "retry-after": String(wait) });
    return await route.handler({ hub, req, url, match, agent: caller });
  } catch (error) {
    // B-138: the one error a poller must handle, exactly as the spec writes it.
    if (error instanceof CursorExpired || (error as Error | null)?.name === "CursorExpired") return refuse(409, "CURSOR_EXPIRED", "cursor_expired");
    if (isHubError(error)) return renderError(error);
    console.error(error);
    return refuse(500, "INTERNAL", "internal error");
  }
}

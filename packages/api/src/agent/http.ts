import type { AgentCaller, Hub } from "@maity/hub";
import type { z } from "zod";
import { isBodyTooLarge, readBody } from "../body.ts";

// The agent protocol's wire helpers (004 §11): BayChat's error shape {"error": "<message>", "code": "<CODE>"}.

export const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: status === 204 ? headers : { "content-type": "application/json; charset=utf-8", ...headers },
  });
export const refuse = (status: number, code: string, error: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response =>
  answer(status, { error, code, ...extra }, headers);

export interface AgentRequest {
  hub: Hub;
  req: Request;
  url: URL;
  match: RegExpExecArray;
}

/** How a route is documented in /api/openapi.json: the same zod schemas the hub parses and renders with. */
export interface AgentRouteDoc {
  /** The OpenAPI path, `{id}` for the conversation. */
  path: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: 200 | 201 | 204;
}

/** A route of the agent API; `auth: false` only for the pre-auth pairing and linking routes (B-010). */
export type AgentRoute = { method: "GET" | "POST" | "DELETE"; path: RegExp; doc: AgentRouteDoc } & (
  | { auth?: true; bucket?: "agent" | "updates"; handler: (r: AgentRequest & { agent: AgentCaller }) => Promise<Response> }
  | { auth: false; handler: (r: AgentRequest) => Promise<Response> }
);

/** Request bodies are small JSON objects (docs/agent-api.md "Limits"). */
export const AGENT_BODY_MAX_BYTES = 256 * 1024;

/**
 * The JSON body of a request: `{}` when empty; a 413 (the limit named) past `limit` bytes — read no
 * further (issue 13 #2) — and a 400 when it is not JSON.
 */
export async function jsonBody(
  req: Request,
  limit = AGENT_BODY_MAX_BYTES,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  let text: string;
  try {
    text = new TextDecoder().decode(await readBody(req, limit));
  } catch (error) {
    if (!isBodyTooLarge(error)) throw error;
    return { ok: false, response: refuse(413, "BODY_TOO_LARGE", `the body is over ${limit} bytes`, { limit }) };
  }
  if (!text.trim()) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, response: refuse(400, "INVALID_JSON", "the body is not valid JSON", { fields: { body: "invalid_json" } }) };
  }
}

/** The query string as an object (each name once; a repeated name keeps its last value). */
export const queryOf = (url: URL): Record<string, string> => Object.fromEntries(url.searchParams.entries());

/** Where the hub is reached: MAITY_PUBLIC_URL (`hub.publicUrl`), else the request's own origin (behind a proxy, its forwarded one). */
export function baseUrlOf(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const url = new URL(req.url);
  const proto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(":", "");
  const host = req.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || req.headers.get("host") || url.host;
  return `${proto}://${host}`;
}

/** The client's address for pre-auth limits: the custom server's own header, else the proxy's. */
export const clientAddress = (req: Request): string =>
  req.headers.get("x-maity-remote") ?? req.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "unknown";

import { HubError, renderMaityError } from "@maity/domain";
import { fileTooLarge, type Hub } from "@maity/hub";
import { Readable } from "node:stream";
import { callTRPCProcedure } from "@trpc/server";
import { limitBody, readBody } from "../body.ts";
import { baseUrlOf, clientAddress, cookieChangeRefusal, decodeSegment } from "../edge.ts";
import { openApiDocument } from "../openapi.ts";
import { type RestRoute, restRoutes } from "./routes.ts";
import { appRouter } from "../routers/index.ts";
import { type ApiOptions, adminAccess, callerFromRequest, isSecure } from "../session.ts";
import type { Context, StreamAnswer } from "../trpc.ts";
import { agentErrorResponse, agentRefusal, errorResponse, json } from "./errors.ts";

export { errorResponse, json } from "./errors.ts";
export { type RestRoute, restRoutes } from "./routes.ts";

// The one REST adapter: each route is a procedure of appRouter — a Maity route (`meta.rest`) or an
// agent API operation (`meta.agent`, 004 §11) — called through createCaller, the same code path as
// tRPC. Here only the wire is mapped: path, query, JSON body and headers into the procedure's input;
// its output or HubError into the answer, in the Maity style (DESIGN §4) or the protocol's
// `{error, code}` under /api/agent-api.

const ROUTES = restRoutes();
const AGENT_API = "/api/agent-api";
/** Room for a multipart body's boundaries, part headers and small fields around the file. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

/**
 * The JSON body: at most the route's limit (read no further), an object; empty means {}.
 * Not JSON is `invalid` naming `body`, under the protocol's INVALID_JSON on the agent routes (B-162).
 */
async function readJson(req: Request, limit: number, style: RestRoute["style"]): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, limit);
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw HubError.invalid(
      { body: "not_json" },
      "the request body is not valid JSON",
      style === "agent" ? { agentCode: "INVALID_JSON" } : {},
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw HubError.invalid({ body: "not_an_object" }, "the request body is a JSON object");
  return value as Record<string, unknown>;
}

/** Fields the path already names cannot come again in the query or the body. */
function merge(params: Record<string, string>, fields: Record<string, unknown>): Record<string, unknown> {
  const repeated = Object.keys(fields).filter((k) => k in params);
  if (repeated.length) throw HubError.invalid(Object.fromEntries(repeated.map((k) => [k, "unknown_field"])));
  return { ...fields, ...params };
}

/**
 * Calls the route's procedure as tRPC does, with its input read lazily: the procedure's middleware
 * (the credential table, the agent's rate budget) runs before `rawInput` is, so a refused caller costs
 * no body read (B-010, B-360) and one gate serves REST and tRPC alike.
 */
type ProcedureType = "query" | "mutation" | "subscription";
function callProcedure(ctx: Context, name: string, rawInput: () => Promise<unknown>): Promise<unknown> {
  const procedure = (appRouter._def.procedures as unknown as Record<string, { _def: { type: ProcedureType } }>)[name];
  return callTRPCProcedure({
    router: appRouter,
    path: name,
    type: procedure?._def.type ?? "query",
    ctx,
    getRawInput: rawInput,
    signal: ctx.signal,
    batchIndex: 0,
  });
}

/** Answers a request under /api (except /api/trpc); unknown paths answer not_found. */
export async function handleRest(hub: Hub, req: Request, options: ApiOptions = {}): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  if (path === "/api/openapi.json" && req.method === "GET") return json(200, openApiDocument());
  const agentApi = path === AGENT_API || path.startsWith(`${AGENT_API}/`);
  // Built only when answered: an error and a response per request cost the send's hot path.
  const notFound = () =>
    agentApi
      ? agentRefusal(404, "NOT_FOUND", "no such route")
      : json(404, renderMaityError(HubError.notFound("no such route")));
  const candidates = ROUTES.filter((r) => r.pattern.test(path));
  if (!candidates.length) return notFound();
  const admin = adminAccess(req, options.adminToken);
  const match = candidates.find((r) => r.meta.method === req.method);
  if (!match) {
    if (candidates.every((r) => r.access === "admin") && admin === "hidden") return notFound();
    const allow = { allow: candidates.map((r) => r.meta.method).join(", ") };
    if (agentApi) return agentRefusal(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed here`, {}, allow);
    return json(
      405,
      { error: { code: "method_not_allowed", message: `${req.method} is not allowed here`, details: {} } },
      allow,
    );
  }
  let input: Record<string, unknown> | undefined;
  try {
    // Who is calling comes first: an outsider learns nothing from how its input is refused.
    if (match.access === "admin" && admin === "hidden") return notFound();
    if (match.access === "admin" && admin !== "ok") throw HubError.unauthenticated();
    // CSRF: a cookie-borne change from another site (or not JSON) is refused before anything.
    // The agent API takes agent tokens only (a cookie is refused below), so it is not concerned.
    const multipart = match.meta.body === "multipart";
    const refusal = match.access === "member" ? cookieChangeRefusal(req, hub.publicUrl, { multipart }) : null;
    if (refusal) throw refusal;
    const { caller, session, credential, device } =
      match.access === "admin" || match.access === "public"
        ? { caller: null, session: null, credential: null, device: null }
        : await callerFromRequest(hub, req);
    // Read only once the procedure's gate (the credential table, the agent's budget) let the caller in.
    const readInput = async (): Promise<Record<string, unknown>> => {
      const values = match.pattern.exec(path)?.slice(1) ?? [];
      const params = Object.fromEntries(
        match.keys.map((key, i) => [key, decodeSegment(values[i] ?? "", match.style === "agent" ? "path" : key)]),
      );
      const fields =
        match.meta.method === "GET" || match.meta.method === "DELETE" || multipart
          ? Object.fromEntries(url.searchParams)
          : await readJson(req, match.bodyLimit, match.style);
      input = merge(params, fields);
      for (const [header, field] of Object.entries(match.meta.headers ?? {})) {
        const value = req.headers.get(header);
        if (value !== null) input[field] = value;
      }
      return input;
    };
    const ctx: Context = {
      hub,
      caller,
      device,
      session,
      resHeaders: new Headers(),
      secure: isSecure(req),
      admin,
      // What a held read (/updates) re-checks while it waits, so a revoked token ends it (B-011).
      credential,
      address: clientAddress(req),
      signal: req.signal,
      baseUrl: baseUrlOf(req, hub.publicUrl),
      // A multipart route reads its own body, up to the upload limit plus the multipart framing;
      // a declared Content-Length over it is refused before anything is read (413, FILE_TOO_LARGE).
      rest: {
        body: multipart ? uploadBody(hub, req) : null,
        contentType: req.headers.get("content-type"),
      },
    };
    const output = await callProcedure(ctx, match.name, readInput);
    if (match.meta.stream) return streamResponse(output as StreamAnswer);
    const answer = match.meta.respond
      ? match.meta.respond(output as never)
      : { status: match.meta.status ?? 200, body: output };
    const res = json(answer.status, answer.body);
    // What the procedure set on its answer (a sign-up's session cookie) goes out over REST as over tRPC.
    for (const [name, value] of ctx.resHeaders) res.headers.append(name, value);
    return res;
  } catch (error) {
    return match.style === "agent"
      ? agentErrorResponse(error, input, match.meta.invalidCode)
      : errorResponse(error, input);
  }
}

/** The request's body for an upload: at most the plan's limit and the multipart framing (B-188). */
function uploadBody(hub: Hub, req: Request): ReadableStream<Uint8Array> | null {
  const limit = hub.files.maxUploadBytes;
  return limitBody(req, limit + MULTIPART_OVERHEAD_BYTES, () => fileTooLarge(limit)).body;
}

/** A procedure's streamed answer (a download, B-185) as the Response. */
function streamResponse(answer: StreamAnswer): Response {
  const body = answer.body ? (Readable.toWeb(answer.body) as ReadableStream<Uint8Array>) : null;
  return new Response(body, { status: answer.status, headers: answer.headers });
}

import { fieldsOf, HubError, hubErrorStatus, isHubError, REQUEST_BODY_MAX_BYTES, renderMaityError } from "@maity/domain";
import type { Hub } from "@maity/hub";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { readBody } from "../body.ts";
import { cookieChangeRefusal, decodeSegment } from "../edge.ts";
import { openApiDocument } from "../openapi.ts";
import { appRouter } from "../routers/index.ts";
import { type ApiOptions, adminAccess, callerFromRequest, isSecure } from "../session.ts";
import type { Context, RestMeta } from "../trpc.ts";

// The REST adapter: each Maity route is a procedure of appRouter (its `meta.rest`), called through
// createCaller — the same code path as tRPC. Here only the wire is mapped: path, query, JSON body
// and headers into the procedure's input; its output or HubError into the Maity answer.

type Procedure = { _def: { meta?: { rest?: RestMeta }; type: string } };
export interface RestRoute {
  name: string;
  meta: RestMeta;
  pattern: RegExp;
  keys: string[];
}

export function restRoutes(): RestRoute[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, Procedure>;
  return Object.entries(procedures).flatMap(([name, procedure]) => {
    const meta = procedure._def.meta?.rest;
    if (!meta) return [];
    const keys: string[] = [];
    const pattern = new RegExp(
      `^${meta.path.replace(/\{(\w+)\}/g, (_, key: string) => {
        keys.push(key);
        return "([^/]+)";
      })}$`,
    );
    return [{ name, meta, pattern, keys }];
  });
}
const ROUTES = restRoutes();

export const json = (status: number, body: unknown): Response =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: status === 204 ? {} : { "content-type": "application/json; charset=utf-8" } });

export function errorResponse(error: unknown, input?: unknown): Response {
  const hub = toHubError(error, input);
  if (hub) return json(hubErrorStatus[hub.code], renderMaityError(hub));
  console.error(error);
  return json(500, { error: { code: "internal", message: "internal error", details: {} } });
}

function toHubError(error: unknown, input: unknown): HubError | null {
  if (isHubError(error)) return error;
  if (error instanceof TRPCError) {
    if (isHubError(error.cause)) return error.cause;
    if (error.cause instanceof ZodError) return HubError.invalid(fieldsOf(error.cause, input));
  }
  return null;
}

/** The JSON body: at most REQUEST_BODY_MAX_BYTES (read no further: issue 13 #2), an object; empty means {}. */
async function readJson(req: Request): Promise<Record<string, unknown>> {
  const bytes = await readBody(req, REQUEST_BODY_MAX_BYTES);
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw HubError.invalid({ body: "not_json" }, "the request body is not valid JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw HubError.invalid({ body: "not_an_object" }, "the request body is a JSON object");
  return value as Record<string, unknown>;
}

/** Fields the path already names cannot come again in the query or the body. */
function merge(params: Record<string, string>, fields: Record<string, unknown>): Record<string, unknown> {
  const repeated = Object.keys(fields).filter((k) => k in params);
  if (repeated.length) throw HubError.invalid(Object.fromEntries(repeated.map((k) => [k, "unknown_field"])));
  return { ...fields, ...params };
}

function callProcedure(ctx: Context, name: string, input: unknown): Promise<unknown> {
  let target: unknown = appRouter.createCaller(ctx);
  for (const part of name.split(".")) target = (target as Record<string, unknown>)[part];
  return (target as (input: unknown) => Promise<unknown>)(input);
}

/** Answers a request under /api (except /api/trpc); unknown paths answer not_found. */
export async function handleRest(hub: Hub, req: Request, options: ApiOptions = {}): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  if (path === "/api/openapi.json" && req.method === "GET") return json(200, openApiDocument());
  const notFound = json(404, renderMaityError(HubError.notFound("no such route")));
  const candidates = ROUTES.filter((r) => r.pattern.test(path));
  if (!candidates.length) return notFound;
  const admin = adminAccess(req, options.adminToken);
  const isAdmin = (r: RestRoute) => r.meta.path.startsWith("/api/admin/");
  const match = candidates.find((r) => r.meta.method === req.method);
  if (!match) {
    if (candidates.every(isAdmin) && admin === "hidden") return notFound;
    return json(405, { error: { code: "method_not_allowed", message: `${req.method} is not allowed here`, details: {} } });
  }
  let input: Record<string, unknown> | undefined;
  try {
    // Who is calling comes first: an outsider learns nothing from how its input is refused.
    if (isAdmin(match) && admin === "hidden") return notFound;
    if (isAdmin(match) && admin !== "ok") throw HubError.unauthenticated();
    // Issue 13 #6: a cookie-borne change from another site (or not JSON) is refused before anything.
    const refusal = isAdmin(match) ? null : cookieChangeRefusal(req, hub.publicUrl);
    if (refusal) throw refusal;
    const { caller, session } = isAdmin(match) ? { caller: null, session: null } : await callerFromRequest(hub, req);
    if (!caller && !isAdmin(match) && match.name !== "health") throw HubError.unauthenticated();
    const values = match.pattern.exec(path)?.slice(1) ?? [];
    const params = Object.fromEntries(match.keys.map((key, i) => [key, decodeSegment(values[i] ?? "", key)]));
    const fields = match.meta.method === "GET" || match.meta.method === "DELETE" ? Object.fromEntries(url.searchParams) : await readJson(req);
    input = merge(params, fields);
    for (const [header, field] of Object.entries(match.meta.headers ?? {})) {
      const value = req.headers.get(header);
      if (value !== null) input[field] = value;
    }
    const ctx: Context = { hub, caller, session, resHeaders: new Headers(), secure: isSecure(req), admin };
    const output = await callProcedure(ctx, match.name, input);
    if (match.meta.respond) {
      const { status, body } = match.meta.respond(output as never);
      return json(status, body);
    }
    return json(match.meta.status ?? 200, output);
  } catch (error) {
    return errorResponse(error, input);
  }
}

import { timingSafeEqual } from "node:crypto";
import { HubError, hubErrorStatus, isHubError, renderMaityError } from "@maity/domain";
import type { Caller, Hub } from "@maity/hub";
import { callerFromRequest } from "../session.ts";

// The REST adapter: thin mappings of Maity paths onto the hub's services (issue 2 §4, §6).
// Handlers parse the wire, call one service and render the answer; no rule lives here.

type Params = Record<string, string>;
type Handler = (ctx: { hub: Hub; req: Request; params: Params; url: URL; body: () => Promise<unknown> }) => Promise<Response>;
type Route = { method: string; pattern: RegExp; keys: string[]; auth: "admin" | "caller" | "none"; handler: Handler };
type CallerHandler = (ctx: Parameters<Handler>[0] & { caller: Caller }) => Promise<Response>;

export const json = (status: number, body: unknown): Response =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: status === 204 ? {} : { "content-type": "application/json; charset=utf-8" } });

export function errorResponse(error: unknown): Response {
  if (isHubError(error)) return json(hubErrorStatus[error.code], renderMaityError(error));
  console.error(error);
  return json(500, { error: { code: "internal", message: "internal error", details: {} } });
}

const routes: Route[] = [];
function route(method: string, path: string, auth: Route["auth"], handler: Handler) {
  const keys: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_, key: string) => {
      keys.push(key);
      return "([^/]+)";
    })}$`,
  );
  routes.push({ method, pattern, keys, auth, handler });
}
const withCaller = (handler: CallerHandler): Handler => async (ctx) => {
  const { caller } = await callerFromRequest(ctx.hub, ctx.req);
  if (!caller) throw HubError.unauthenticated();
  return handler({ ...ctx, caller });
};

route("GET", "/api/health", "none", async ({ hub }) => json(200, hub.health()));

// Operator routes: Authorization: Bearer $MAITY_ADMIN_TOKEN; 404 when the variable is unset.
route("POST", "/api/admin/humans", "admin", async ({ hub, body }) => json(201, await hub.admin.createHuman(await body())));
route("POST", "/api/admin/agents", "admin", async ({ hub, body }) => json(201, await hub.admin.createAgent(await body())));
route("POST", "/api/admin/projects", "admin", async ({ hub, body }) => json(201, await hub.admin.createProject(await body())));
route("POST", "/api/admin/projects/{owner}/{slug}/members", "admin", async ({ hub, params, body }) => json(201, await hub.admin.addMember(params, await body())));
route("DELETE", "/api/admin/projects/{owner}/{slug}/members/{member_id}", "admin", async ({ hub, params, url }) =>
  json(200, await hub.admin.removeMember(params, params.member_id ?? "", url.searchParams.get("reason") ?? undefined)),
);
route("POST", "/api/admin/projects/{owner}/{slug}/archive", "admin", async ({ hub, params }) => json(200, await hub.admin.archiveProject(params)));
route("POST", "/api/admin/tokens", "admin", async ({ hub, body }) => json(201, await hub.admin.mintToken(await body())));
route("POST", "/api/admin/tokens/revoke", "admin", async ({ hub, body }) => json(200, await hub.admin.revokeToken(await body())));

// Conversations (§9.1).
route("GET", "/api/projects/{owner}/{slug}/conversations", "caller", withCaller(async ({ hub, caller, params }) =>
  json(200, { items: await hub.direct.listDirect(caller, params), next_cursor: null }),
));
route("POST", "/api/projects/{owner}/{slug}/conversations", "caller", withCaller(async ({ hub, caller, params, body, req }) => {
  const { status, view } = await hub.groups.create(caller, params, await body(), req.headers.get("idempotency-key"));
  return json(status, view);
}));
route("GET", "/api/projects/{owner}/{slug}/conversations/{id}", "caller", withCaller(async ({ hub, caller, params }) =>
  json(200, await hub.conversation(caller, params, params.id ?? "")),
));
route("GET", "/api/projects/{owner}/{slug}/conversations/{id}/messages", "caller", withCaller(async ({ hub, caller, params, url }) =>
  json(200, await hub.direct.messages(caller, params, params.id ?? "", Object.fromEntries(url.searchParams))),
));
route("POST", "/api/projects/{owner}/{slug}/conversations/{id}/messages", "caller", withCaller(async ({ hub, caller, params, body }) =>
  json(201, await hub.direct.post(caller, params, params.id ?? "", await body())),
));

async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw HubError.invalid({ body: "not_json" }, "the request body is not valid JSON");
  }
}

function adminAllowed(req: Request, adminToken: string | undefined): "ok" | "hidden" | "unauthenticated" {
  if (!adminToken) return "hidden";
  const header = req.headers.get("authorization") ?? "";
  const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (!given) return "unauthenticated";
  const a = Buffer.from(given);
  const b = Buffer.from(adminToken);
  return a.length === b.length && timingSafeEqual(a, b) ? "ok" : "unauthenticated";
}

/** Answers a request under /api (except /api/trpc), or null when no route matches the path. */
export async function handleRest(hub: Hub, req: Request, env: { adminToken?: string | undefined } = { adminToken: process.env.MAITY_ADMIN_TOKEN }): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname.replace(/\/+$/, "") || "/";
  const candidates = routes.filter((r) => r.pattern.test(path));
  const notFound = json(404, renderMaityError(HubError.notFound("no such route")));
  if (!candidates.length) return notFound;
  const match = candidates.find((r) => r.method === req.method);
  if (!match) {
    if (candidates.every((r) => r.auth === "admin") && !env.adminToken) return notFound;
    return json(405, { error: { code: "method_not_allowed", message: `${req.method} is not allowed here`, details: {} } });
  }
  if (match.auth === "admin") {
    const allowed = adminAllowed(req, env.adminToken);
    if (allowed === "hidden") return notFound;
    if (allowed === "unauthenticated") return errorResponse(HubError.unauthenticated());
  }
  const values = match.pattern.exec(path)?.slice(1) ?? [];
  const params: Params = Object.fromEntries(match.keys.map((key, i) => [key, decodeURIComponent(values[i] ?? "")]));
  try {
    return await match.handler({ hub, req, params, url, body: () => readJson(req) });
  } catch (error) {
    return errorResponse(error);
  }
}

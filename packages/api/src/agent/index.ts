import { isHubError } from "@maity/domain";
import type { AgentCaller, Hub } from "@maity/hub";
import { callerFromRequest } from "../session.ts";

// The agent protocol's HTTP surface (004 §11) under /api/agent-api, over the same hub services.
// It speaks BayChat's shapes and errors: {"error": "<message>", "code": "<CODE>"}. Issue 5 builds
// it out (context, messages, /updates, /ws, webhooks); this is its identity part.

/** The protocol version this hub speaks: the changelog's top entry (B-029, B-031). */
export const PROTOCOL_VERSION = "1.23";

const answer = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8" } });
const refuse = (status: number, code: string, error: string): Response => answer(status, { error, code });

type Route = { method: string; path: RegExp; handler: (hub: Hub, agent: AgentCaller, match: RegExpExecArray) => Promise<Response> };
const routes: Route[] = [
  {
    method: "GET",
    path: /^\/api\/agent-api\/me$/,
    // B-012: who the token is, and the protocol version.
    handler: async (hub, agent) => {
      const row = await hub.db.agent.findUniqueOrThrow({ where: { id: agent.id }, select: { handle: true, description: true, owner: { select: { handle: true } } } });
      return answer(200, { id: agent.id, name: `${row.owner.handle}/${row.handle}`, description: row.description, instanceId: agent.instanceId, protocolVersion: PROTOCOL_VERSION });
    },
  },
  {
    method: "GET",
    path: /^\/api\/agent-api\/conversations$/,
    // §3/§11: the agent's rooms across its projects. Ids here are the hub's global conversation
    // keys (opaque, one per conversation), since a direct conversation's Maity id — the agent's
    // member id — repeats in every project the agent is in.
    handler: async (hub, agent) => answer(200, { conversations: await hub.conversations.forAgent(agent) }),
  },
  {
    method: "GET",
    path: /^\/api\/agent-api\/conversations\/([^/]+)\/context$/,
    // §3: the envelope; 403 NOT_PARTICIPANT for a room the agent is not in, whether it exists or not.
    handler: async (hub, agent, match) => {
      const context = await hub.conversations.contextForAgent(agent, decodeURIComponent(match[1] ?? ""));
      return context ? answer(200, context) : refuse(403, "NOT_PARTICIPANT", "you are not a participant of this conversation");
    },
  },
];

export async function handleAgentApi(hub: Hub, req: Request): Promise<Response> {
  const path = new URL(req.url).pathname.replace(/\/+$/, "");
  const candidates = routes.filter((r) => r.path.test(path));
  if (!candidates.length) return refuse(404, "NOT_FOUND", "no such route");
  const route = candidates.find((r) => r.method === req.method);
  if (!route) return refuse(405, "METHOD_NOT_ALLOWED", `${req.method} is not allowed here`);
  try {
    // B-010/B-011: a bay_ agent token, nothing else; missing, unknown or revoked answer the same 401.
    const { caller } = await callerFromRequest(hub, req);
    if (caller?.kind !== "agent") return refuse(401, "UNAUTHORIZED", "missing or invalid agent token");
    return await route.handler(hub, caller, route.path.exec(path) as RegExpExecArray);
  } catch (error) {
    if (isHubError(error)) return refuse(error.status, error.code.toUpperCase(), error.message);
    console.error(error);
    return refuse(500, "INTERNAL", "internal error");
  }
}

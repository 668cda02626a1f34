import { type AgentRoute, answer, jsonBody, queryOf, refuse } from "./http.ts";

// 004 §2, §3, §5, §7: who I am, my rooms, a room's envelope, reading and sending.

const notParticipant = () => refuse(403, "NOT_PARTICIPANT", "you are not a participant of this conversation");
const ROOM = "([^/]+)";

export const conversationRoutes: AgentRoute[] = [
  { method: "GET", path: /^\/api\/agent-api\/me$/, handler: async ({ hub, agent }) => answer(200, await hub.agents.me(agent)) },
  { method: "GET", path: /^\/api\/agent-api\/conversations$/, handler: async ({ hub, agent }) => answer(200, { conversations: await hub.agents.rooms(agent) }) },
  {
    method: "GET",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/context$`),
    // B-038: 403 NOT_PARTICIPANT for a room the agent is not in, whether it exists or not.
    handler: async ({ hub, agent, match }) => {
      const context = await hub.agents.context(agent, decodeURIComponent(match[1] ?? ""));
      return context ? answer(200, context) : notParticipant();
    },
  },
  {
    method: "GET",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/messages$`),
    handler: async ({ hub, agent, match, url }) => {
      const page = await hub.agents.poll(agent, decodeURIComponent(match[1] ?? ""), queryOf(url));
      return page ? answer(200, page) : notParticipant(); // B-100
    },
  },
  {
    method: "POST",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/messages$`),
    // B-116: not in the room → 404, the same as an unknown id.
    handler: async ({ hub, agent, match, req }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      return answer(201, await hub.agents.send(agent, decodeURIComponent(match[1] ?? ""), body.value));
    },
  },
  {
    method: "POST",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/typing$`),
    handler: async ({ hub, agent, match }) => {
      await hub.agents.typing(agent, decodeURIComponent(match[1] ?? ""));
      return answer(200, { ok: true });
    },
  },
];

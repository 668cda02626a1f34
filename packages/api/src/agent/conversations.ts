import {
  agentMeSchema,
  agentMessagePageSchema,
  agentMessageSchema,
  agentPollQuery,
  agentRoomSchema,
  agentSendInput,
  contextEnvelopeSchema,
} from "@maity/domain";
import { z } from "zod";
import { type AgentRoute, answer, jsonBody, queryOf, refuse } from "./http.ts";

// 004 §2, §3, §5, §7: who I am, my rooms, a room's envelope, reading and sending.

const notParticipant = () => refuse(403, "NOT_PARTICIPANT", "you are not a participant of this conversation");
const ROOM = "([^/]+)";
/** The room id of the path; percent-encoding that decodes to no text names no room (issue 13 #3: it was a 500). */
function roomKey(match: RegExpExecArray): string {
  try {
    return decodeURIComponent(match[1] ?? "");
  } catch {
    return "";
  }
}
const R = "/api/agent-api/conversations/{id}";

export const conversationRoutes: AgentRoute[] = [
  {
    method: "GET",
    path: /^\/api\/agent-api\/me$/,
    doc: { path: "/api/agent-api/me", summary: "Who the token is, and the protocol version (§2)", response: agentMeSchema },
    handler: async ({ hub, agent }) => answer(200, await hub.agents.me(agent)),
  },
  {
    method: "GET",
    path: /^\/api\/agent-api\/conversations$/,
    doc: { path: "/api/agent-api/conversations", summary: "The agent's rooms (DM and GROUP) in every project it is in", response: z.object({ conversations: z.array(agentRoomSchema) }) },
    handler: async ({ hub, agent }) => answer(200, { conversations: await hub.agents.rooms(agent) }),
  },
  {
    method: "GET",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/context$`),
    doc: { path: `${R}/context`, summary: "The context envelope (§3); 403 NOT_PARTICIPANT for a room the agent is not in", response: contextEnvelopeSchema },
    // B-038: 403 NOT_PARTICIPANT for a room the agent is not in, whether it exists or not.
    handler: async ({ hub, agent, match }) => {
      const context = await hub.agents.context(agent, roomKey(match));
      return context ? answer(200, context) : notParticipant();
    },
  },
  {
    method: "GET",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/messages$`),
    doc: { path: `${R}/messages`, summary: "Messages since a time (ascending) or older history by cursor (newest first), with the envelope (§5)", query: agentPollQuery, response: agentMessagePageSchema },
    handler: async ({ hub, agent, match, url }) => {
      const page = await hub.agents.poll(agent, roomKey(match), queryOf(url));
      return page ? answer(200, page) : notParticipant(); // B-100
    },
  },
  {
    method: "POST",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/messages$`),
    doc: { path: `${R}/messages`, summary: "Send a message (§7); 404 for a room the agent is not in; a repeat with the same Idempotency-Key or clientMessageId answers the first message (200)", body: agentSendInput, response: agentMessageSchema, status: 201 },
    // B-116: not in the room → 404, the same as an unknown id.
    handler: async ({ hub, agent, match, req }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      const sent = await hub.agents.send(agent, roomKey(match), body.value, req.headers.get("idempotency-key"));
      return answer(sent.replayed ? 200 : 201, sent.message);
    },
  },
  {
    method: "POST",
    path: new RegExp(`^/api/agent-api/conversations/${ROOM}/typing$`),
    doc: { path: `${R}/typing`, summary: "Tell the room's people the agent is writing (§7)", response: z.object({ ok: z.literal(true) }) },
    handler: async ({ hub, agent, match }) => {
      await hub.agents.typing(agent, roomKey(match));
      return answer(200, { ok: true });
    },
  },
];

import { updatesAnswerSchema, updatesQuery } from "@maity/domain";
import { type AgentRoute, answer, queryOf } from "./http.ts";

// 004 §11 GET /updates: one held request over all the agent's conversations (B-127…B-145).
export const updatesRoutes: AgentRoute[] = [
  {
    method: "GET",
    path: /^\/api\/agent-api\/updates$/,
    bucket: "updates",
    doc: {
      path: "/api/agent-api/updates",
      summary: "One held request over all the agent's rooms (§11): {cursor, events}; 409 CURSOR_EXPIRED; its own 20/min bucket",
      query: updatesQuery,
      response: updatesAnswerSchema,
    },
    handler: async ({ hub, agent, url, req }) => answer(200, await hub.feed.updates(agent, queryOf(url), req.signal)),
  },
];

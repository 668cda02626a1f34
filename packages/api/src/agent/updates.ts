import { isHubError, parseBearer, updatesAnswerSchema, updatesQuery } from "@maity/domain";
import { type AgentRoute, answer, queryOf, refuse } from "./http.ts";

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
    handler: async ({ hub, agent, url, req }) => {
      // Issue 13 #7: the held call watches its token; revoked or rotated meanwhile, it answers the
      // 401 a revoked token gets (B-011), and no event written after the revocation.
      const token = parseBearer(req.headers.get("authorization")) ?? "";
      const watch = await hub.auth.watch(agent, { token, instanceId: req.headers.get("x-agent-instance") });
      try {
        return answer(200, await hub.feed.updates(agent, queryOf(url), req.signal, watch));
      } catch (error) {
        if (!isHubError(error) || error.code !== "unauthenticated") throw error;
        return refuse(401, "UNAUTHORIZED", "missing or invalid agent token");
      } finally {
        watch.stop();
      }
    },
  },
];

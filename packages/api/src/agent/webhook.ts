import { webhookInput, webhookSetSchema, webhookViewSchema } from "@maity/domain";
import { type AgentRoute, answer, jsonBody } from "./http.ts";

// 004 §11 Webhook contract v2: POST /webhook sets the agent's webhook (B-162); GET shows it, DELETE removes it.
export const webhookRoutes: AgentRoute[] = [
  {
    method: "POST",
    path: /^\/api\/agent-api\/webhook$/,
    doc: { path: "/api/agent-api/webhook", summary: "Set the agent's webhook (contract v2); the secret is shown once", body: webhookInput, response: webhookSetSchema },
    handler: async ({ hub, agent, req }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      return answer(200, await hub.webhooks.set(agent, body.value));
    },
  },
  {
    method: "GET",
    path: /^\/api\/agent-api\/webhook$/,
    doc: { path: "/api/agent-api/webhook", summary: "The agent's webhook and its queue", response: webhookViewSchema },
    handler: async ({ hub, agent }) => answer(200, await hub.webhooks.get(agent)),
  },
  {
    method: "DELETE",
    path: /^\/api\/agent-api\/webhook$/,
    doc: { path: "/api/agent-api/webhook", summary: "Stop webhook deliveries", status: 204 },
    handler: async ({ hub, agent }) => {
      await hub.webhooks.remove(agent);
      return answer(204, null);
    },
  },
];

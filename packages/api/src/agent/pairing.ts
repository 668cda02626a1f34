import { type AgentRoute, answer, baseUrlOf, jsonBody } from "./http.ts";

// 004 §2 the pre-auth routes (B-010): redeem a pairing code; open and poll a reverse link request.
export const pairingRoutes: AgentRoute[] = [
  {
    method: "POST",
    path: /^\/api\/agent-api\/pair$/,
    auth: false,
    handler: async ({ hub, req }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      return answer(200, await hub.pairing.redeem(body.value, baseUrlOf(req)));
    },
  },
  {
    method: "POST",
    path: /^\/api\/agent-api\/link$/,
    auth: false,
    handler: async ({ hub, req }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      return answer(201, await hub.pairing.createLink(body.value, baseUrlOf(req)));
    },
  },
  {
    method: "POST",
    path: /^\/api\/agent-api\/link\/(lnk-[A-Za-z0-9_-]{1,40})\/poll$/,
    auth: false,
    handler: async ({ hub, req, match }) => {
      const body = await jsonBody(req);
      if (!body.ok) return body.response;
      return answer(200, await hub.pairing.pollLink(match[1] ?? "", body.value, baseUrlOf(req)));
    },
  },
];

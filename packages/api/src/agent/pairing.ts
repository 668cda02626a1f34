import { agentCredentialSchema, linkOpenedSchema, linkPollInput, linkPollSchema, linkRequestInput, pairInput } from "@maity/domain";
import { PREAUTH_BODY_MAX_BYTES } from "../body.ts";
import { type AgentRoute, answer, baseUrlOf, jsonBody } from "./http.ts";

// 004 §2 the pre-auth routes (B-010): redeem a pairing code; open and poll a reverse link request.
// Anyone may call them, so their bodies are held to PREAUTH_BODY_MAX_BYTES (issue 13 #2).
export const pairingRoutes: AgentRoute[] = [
  {
    method: "POST",
    path: /^\/api\/agent-api\/pair$/,
    auth: false,
    doc: { path: "/api/agent-api/pair", summary: "Redeem a pairing code (no token): rotates the agent's token (§2)", body: pairInput, response: agentCredentialSchema },
    handler: async ({ hub, req }) => {
      const body = await jsonBody(req, PREAUTH_BODY_MAX_BYTES);
      if (!body.ok) return body.response;
      return answer(200, await hub.pairing.redeem(body.value, baseUrlOf(req, hub.publicUrl)));
    },
  },
  {
    method: "POST",
    path: /^\/api\/agent-api\/link$/,
    auth: false,
    doc: { path: "/api/agent-api/link", summary: "Open a link request the owner approves in the dashboard (no token, §2)", body: linkRequestInput, response: linkOpenedSchema, status: 201 },
    handler: async ({ hub, req }) => {
      const body = await jsonBody(req, PREAUTH_BODY_MAX_BYTES);
      if (!body.ok) return body.response;
      return answer(201, await hub.pairing.createLink(body.value, baseUrlOf(req, hub.publicUrl)));
    },
  },
  {
    method: "POST",
    path: /^\/api\/agent-api\/link\/(lnk-[A-Za-z0-9_-]{1,40})\/poll$/,
    auth: false,
    doc: { path: "/api/agent-api/link/{id}/poll", summary: "Poll a link request with its secret: pending, then the token once", body: linkPollInput, response: linkPollSchema },
    handler: async ({ hub, req, match }) => {
      const body = await jsonBody(req, PREAUTH_BODY_MAX_BYTES);
      if (!body.ok) return body.response;
      return answer(200, await hub.pairing.pollLink(match[1] ?? "", body.value, baseUrlOf(req, hub.publicUrl)));
    },
  },
];

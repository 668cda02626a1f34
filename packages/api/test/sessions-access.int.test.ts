import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, deviceLogin, restClient, testHub } from "./helpers.ts";

// The authorization matrix of the device credential (issue 30, DESIGN §4e, B-310…B-312, B-324):
// every session route × {own device, another person's device, a revoked device, an agent token, a
// person's token, none}. A credential acts only as its own person's sessions in its own Bay;
// anything else answers exactly like a missing thing (hidden = missing), never with what it holds.

const hub = await testHub({ limits: { preauth: 1_000, agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const T: Record<string, string> = {};
const P = "/api/projects/maintainer/maity";

const device = (person: string, bay: string) => deviceLogin(rest, T[person] ?? null, bay);

const C: Record<string, string | null> = {};
let room: string;
let sessionId: string;
let approvalId: string;
beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  C.own = await device("hum-maintainer", "maintainer");
  C.otherPerson = await device("hum-guest", "maintainer");
  C.revoked = await device("hum-maintainer", "maintainer");
  C.agent = T["agt-a"] ?? null;
  C.person = T["hum-maintainer"] ?? null;
  C.none = null;
  const joined = await rest("POST", "/api/device-api/sessions", {
    token: C.own,
    body: { session: "owned", group: "Release 0.2 go/no-go" },
  });
  room = joined.body.conversation.id;
  sessionId = joined.body.session.id;
  // The revoked device had a session too, before its person signed it out.
  await rest("POST", "/api/device-api/sessions", { token: C.revoked, body: { session: "gone" } });
  approvalId = (
    await rest("POST", "/api/device-api/approvals", {
      token: C.own,
      body: { session: "owned", conversationId: room, question: "Go?" },
    })
  ).body.approvalId;
  const devices = await rest("GET", "/api/me/devices", { token: T["hum-maintainer"] ?? null });
  const newest = (devices.body.items as { id: string }[])[0];
  await rest("DELETE", `/api/me/devices/${newest?.id}`, { token: T["hum-maintainer"] ?? null });
});

const UNAUTHORIZED = { status: 401, body: { error: "missing or invalid agent token", code: "UNAUTHORIZED" } };

describe("the device credential's authorization matrix (B-310, B-312, B-324)", () => {
  it("device API routes: only a signed-in device; another person's device sees only its own; 0 leaks", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/device-api/sessions"],
      ["GET", "/api/device-api/groups"],
      ["GET", "/api/device-api/handoff"],
      ["POST", "/api/device-api/sessions", { session: "probe" }],
      ["POST", "/api/device-api/listen", { session: "owned" }],
      ["GET", "/api/device-api/listen/owned"],
      ["DELETE", "/api/device-api/listen/owned"],
      ["GET", `/api/device-api/approvals/${approvalId}?session=owned&wait=0`],
      ["POST", "/api/device-api/context", { session: "owned", event: "usage", used: 1, size: 10 }],
    ];
    let pinned = 0;
    for (const [method, path, body] of routes) {
      for (const who of ["revoked", "agent", "person", "none"]) {
        expect(
          await rest(method, path, { token: C[who] ?? null, ...(body ? { body } : {}) }),
          `${who} ${path}`,
        ).toEqual(UNAUTHORIZED);
        pinned++;
      }
      const own = await rest(method, path, { token: C.own ?? null, ...(body ? { body } : {}) });
      expect(own.status, `own ${path}`).toBeLessThan(300);
      pinned++;
    }
    // Another person's device: "owned" is not one of its sessions — answered as no such session.
    for (const [method, path, body] of routes.filter(([, p]) => p.includes("owned"))) {
      const other = await rest(method, path, { token: C.otherPerson ?? null, ...(body ? { body } : {}) });
      const missing = await rest(method, path.replace(/owned/g, "nobody-here"), {
        token: C.otherPerson ?? null,
        ...(body ? { body: JSON.parse(JSON.stringify(body).replace(/owned/g, "nobody-here")) } : {}),
      });
      expect(other.status, path).toBe(404);
      expect(JSON.stringify(other.body).replace(/owned/g, "X")).toBe(
        JSON.stringify(missing.body).replace(/nobody-here/g, "X"),
      );
      pinned++;
    }
    // Its own lists hold nothing of the maintainer's.
    const listed = await rest("GET", "/api/device-api/sessions", { token: C.otherPerson ?? null });
    expect(JSON.stringify(listed.body)).not.toContain(sessionId);
    expect(pinned).toBeGreaterThanOrEqual(48);
  });

  it("B-310 X-Maity-Session: only the credential's own person's live session; another's, an ended or a revoked device's is 401", async () => {
    const read = (token: string | null, session: string) =>
      rest("GET", "/api/agent-api/conversations", { token, headers: { "x-maity-session": session } });
    expect((await read(C.own ?? null, "owned")).status).toBe(200);
    expect(await read(C.otherPerson ?? null, "owned")).toEqual(UNAUTHORIZED);
    expect(await read(C.revoked ?? null, "gone")).toEqual(UNAUTHORIZED);
    expect(await read(C.own ?? null, "never")).toEqual(UNAUTHORIZED);
    // Without a session named, the device credential is no agent: the agent API answers 401 as none.
    expect(await rest("GET", "/api/agent-api/conversations", { token: C.own ?? null })).toEqual(UNAUTHORIZED);
    // An agent token naming a session stays itself (the header is the device credential's only).
    const asAgent = await rest("GET", "/api/agent-api/me", {
      token: C.agent ?? null,
      headers: { "x-maity-session": "owned" },
    });
    expect(asAgent.body.id).toBe("agt-a");
  });

  it("the people's session routes: another person meets a session as missing; a device credential is no person", async () => {
    const other = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-guest"] ?? null,
      body: {},
    });
    const unknown = await rest("POST", "/api/sessions/agt-nope/fresh-start", {
      token: T["hum-guest"] ?? null,
      body: {},
    });
    expect(other).toEqual(unknown);
    expect(other.status).toBe(404);
    for (const path of [`/api/sessions/${sessionId}/fresh-start`, "/api/me/sessions", `/api/approvals/${approvalId}`])
      expect((await rest("GET", path, { token: C.own ?? null })).status, path).toBe(401);
    // guest reads the room along, so it sees the card — but decides nothing.
    const decide = await rest("POST", `/api/approvals/${approvalId}`, {
      token: T["hum-guest"] ?? null,
      body: { decision: "approved" },
    });
    expect(decide.status).toBe(403);
    // A §9 route with the device credential alone is unauthenticated; as a session it is that agent.
    expect((await rest("GET", `${P}/conversations`, { token: C.own ?? null })).status).toBe(401);
  });
});

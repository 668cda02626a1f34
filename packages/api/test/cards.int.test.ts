import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// v1.11 cards agents can send (B-217…B-223): a calendar or an email card on the agent send, strict
// payloads with the field named, content as the fallback; read back on both surfaces.

const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};
let cnv = "";
let key = "";

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "hum-maintainer"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const made = await rest("POST", `${P}/conversations`, {
    token: tokens["hum-maintainer"],
    body: { title: "Cards", participants: ["agt-a", "hum-guest"] },
  });
  expect(made.status).toBe(201);
  cnv = made.body.id;
  key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: cnv }, select: { id: true } })).id;
});

async function send(body: unknown) {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api/conversations/${key}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens["agt-a"]}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json() };
}
const count = () => hub.db.event.count({ where: { conversationId: key, kind: "message" } });

const calendar = {
  type: "card.calendar",
  payload: {
    title: "Release review",
    start: "2026-12-08T14:00:00Z",
    end: "2026-12-08T15:00:00Z",
    location: "Room 2",
    attendees: [{ name: "Maintainer", address: "maintainer@example.org" }],
    notes: "Bring the numbers",
  },
};

describe("v1.11 cards on the agent send", () => {
  it("B-217 B-218 a calendar card is stored with metadata.type and read back as cardPayload and the Maity card", async () => {
    const res = await send({ content: "Release review, Tue 8 Dec 14:00 UTC, Room 2", card: calendar });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      content: "Release review, Tue 8 Dec 14:00 UTC, Room 2",
      metadata: { type: "card.calendar" },
      cardPayload: calendar.payload,
    });
    const page = await rest("GET", `${P}/conversations/${cnv}/messages`, { token: tokens["hum-maintainer"] });
    const mine = page.body.items.find((m: { id: string }) => m.id === res.body.id);
    expect(mine.card).toEqual(calendar);
    expect(mine.body).toBe("Release review, Tue 8 Dec 14:00 UTC, Room 2");
  });

  it("B-220 an email card; a plain message keeps cardPayload null", async () => {
    const email = { type: "card.email", payload: { subject: "Invoice 42", from: { address: "billing@example.org" } } };
    const res = await send({ content: "Invoice 42 from billing", card: email });
    expect(res.status).toBe(201);
    expect(res.body.cardPayload).toEqual(email.payload);
    expect((await send({ content: "no card" })).body.cardPayload).toBeNull();
  });

  it("B-223 B-377 card.decision, card.poll or an unknown type → 400 CARD_TYPE_NOT_SENDABLE; nothing written", async () => {
    const before = await count();
    for (const type of ["card.decision", "card.poll", "card.weather"]) {
      const res = await send({ content: "x", card: { type, payload: { title: "x" } } });
      expect(res).toMatchObject({ status: 400, body: { code: "CARD_TYPE_NOT_SENDABLE" } });
    }
    expect(await count()).toBe(before);
  });

  it("B-219 B-220 B-221 B-377 an invalid payload → 400 INVALID_CARD_PAYLOAD naming the field; nothing written", async () => {
    const before = await count();
    const cases: [unknown, string][] = [
      [{ type: "card.calendar", payload: { location: "Room 2" } }, "card.payload.title"],
      [{ type: "card.calendar", payload: { title: "x", start: "next Tuesday" } }, "card.payload.start"],
      [{ type: "card.calendar", payload: { title: "x", colour: "red" } }, "card.payload.colour"],
      [
        { type: "card.calendar", payload: { title: "x", attendees: [{ name: "A" }] } },
        "card.payload.attendees.0.address",
      ],
      [{ type: "card.email", payload: { snippet: "hi" } }, "card.payload.subject"],
      // Missing, or no object: the same code, naming the payload (issue 29).
      [{ type: "card.calendar" }, "card.payload"],
      [{ type: "card.calendar", payload: "tomorrow at 10" }, "card.payload"],
      [{ type: "card.email", payload: ["subject"] }, "card.payload"],
      [{ type: "card.email", payload: null }, "card.payload"],
      [{ type: "card.calendar", payload: { title: 42 } }, "card.payload.title"],
    ];
    for (const [card, field] of cases) {
      const res = await send({ content: "x", card });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("INVALID_CARD_PAYLOAD");
      expect(Object.keys(res.body.fields)).toEqual([field]);
      expect(res.body.error).toContain(field);
    }
    expect(await count()).toBe(before);
  });

  it("B-218 content stays required with a card", async () => {
    const res = await send({ content: " ", card: calendar });
    expect(res.status).toBe(400);
  });
});

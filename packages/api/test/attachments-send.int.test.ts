import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { uploaded } from "./attachments.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Files on messages (004 §10 "Attachments and voice", B-181…B-202; Maity §8.7, M-030): linking all or
// nothing, the agent metadata with signed URLs on every agent-facing payload, never a file name.

const hub = await testHub({ limits: { agent: 100_000, updates: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};
let cnv = "";
let key = "";

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const made = await rest("POST", `${P}/conversations`, {
    token: tokens["hum-maintainer"],
    body: { title: "Files", participants: ["agt-a", "hum-guest"] },
  });
  expect(made.status).toBe(201);
  cnv = made.body.id;
  key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: cnv }, select: { id: true } })).id;
});

async function agentCall(method: string, path: string, body?: unknown, token = tokens["agt-a"]) {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await res.json() };
}
const send = (body: unknown, token = tokens["agt-a"]) =>
  agentCall("POST", `/conversations/${key}/messages`, body, token);
const count = () => hub.db.event.count({ where: { conversationId: key, kind: "message" } });

/** Whether a URL is an absolute signed download of this id that verifies now (B-185). */
function verifies(url: string, id: string): boolean {
  const u = new URL(url);
  return (
    u.origin === new URL(BASE).origin &&
    u.pathname === `/api/files/${id}` &&
    hub.fileKeys.verify(id, u.searchParams.get("exp") ?? "", u.searchParams.get("sig") ?? "")
  );
}

describe("sending files (agent API)", () => {
  it("B-181 B-182 B-183 B-184 B-198 two files in render order: metadata.attachments signed, the legacy mirror, no name", async () => {
    const image = await uploaded(hub, "agt-a", { mimeType: "image/png", name: "holiday.png" });
    const pdf = await uploaded(hub, "agt-a", { name: "secret-plan.pdf" });
    const res = await send({ content: "two files", attachments: [{ attachmentId: pdf }, { attachmentId: image }] });
    expect(res.status).toBe(201);
    const files = res.body.metadata.attachments;
    expect(files.map((f: { attachmentId: string }) => f.attachmentId)).toEqual([pdf, image]);
    expect(files[0]).toMatchObject({ attachmentId: pdf, type: "file", mimeType: "application/pdf" });
    expect(files[1]).toMatchObject({ attachmentId: image, type: "image", mimeType: "image/png" });
    expect(files[0].sizeBytes).toBeGreaterThan(0);
    expect(verifies(files[0].attachmentUrl, pdf)).toBe(true);
    expect(verifies(files[1].attachmentUrl, image)).toBe(true);
    expect(res.body.metadata.attachmentId).toBe(pdf);
    expect(res.body.metadata.attachmentUrl).toBe(files[0].attachmentUrl);
    expect(JSON.stringify(res.body)).not.toMatch(/secret-plan|holiday/);
    // M-030: the Maity message carries the §8.7 metadata in the same order, no URL, no name.
    const page = await rest("GET", `${P}/conversations/${cnv}/messages`, { token: tokens["hum-maintainer"] });
    const mine = page.body.items.find((m: { id: string }) => m.id === res.body.id);
    expect(mine.attachments.map((a: { id: string }) => a.id)).toEqual([pdf, image]);
    expect(mine.attachments[1]).toEqual({
      id: image,
      type: "image",
      mime_type: "image/png",
      size: expect.any(Number),
      thumbhash: "3OcRJYB4d3h/iIeHeEh3eIhw+j2w",
      width: 640,
      height: 480,
    });
    const rows = await hub.db.attachment.findMany({
      where: { id: { in: [pdf, image] } },
      select: { id: true, eventSeq: true, position: true, conversationId: true, linkedAt: true },
      orderBy: { position: "asc" },
    });
    expect(rows.map((r) => [r.id, r.position, r.conversationId])).toEqual([
      [pdf, 0, key],
      [image, 1, key],
    ]);
    expect(rows.every((r) => r.eventSeq === mine.seq && r.linkedAt !== null)).toBe(true);
  });

  it("B-185 every read signs afresh: the REST poll and /updates carry fresh URLs that verify", async () => {
    const cursor = (await agentCall("GET", "/updates?wait=0")).body.cursor;
    const id = await uploaded(hub, "hum-maintainer");
    const posted = await rest("POST", `${P}/conversations/${cnv}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "", attachments: [id] },
    });
    expect(posted.status).toBe(201);
    expect(posted.body.body).toBe("");
    const soon = Math.floor(Date.now() / 1000) + 3000;
    const poll = await agentCall("GET", `/conversations/${key}/messages?limit=5`);
    const polled = poll.body.messages.find((m: { id: string }) => m.id === posted.body.id);
    expect(verifies(polled.metadata.attachments[0].attachmentUrl, id)).toBe(true);
    expect(Number(new URL(polled.metadata.attachmentUrl).searchParams.get("exp"))).toBeGreaterThan(soon);
    const updates = await agentCall("GET", `/updates?wait=0&cursor=${cursor}`);
    const event = updates.body.events.find((e: { message: { id: string } }) => e.message.id === posted.body.id);
    expect(event.message.metadata.attachments).toEqual([
      expect.objectContaining({ attachmentId: id, type: "file", attachmentUrl: expect.any(String) }),
    ]);
    expect(verifies(event.message.metadata.attachmentUrl, id)).toBe(true);
    // A URL with one character changed does not verify.
    const u = new URL(event.message.metadata.attachmentUrl);
    const sig = u.searchParams.get("sig") ?? "";
    const changed = `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
    expect(hub.fileKeys.verify(id, u.searchParams.get("exp") ?? "", changed)).toBe(false);
  });

  it("B-198 B-182 the legacy single attachmentId with metadata.type", async () => {
    const id = await uploaded(hub, "agt-a", { mimeType: "image/jpeg" });
    const res = await send({ content: "legacy", attachmentId: id, metadata: { type: "image" } });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toMatchObject({ type: "image", attachmentId: id, attachments: [{ attachmentId: id }] });
    expect(verifies(res.body.metadata.attachmentUrl, id)).toBe(true);
  });

  it("issue 29 a visitor's own upload links into a room it was placed in, and then belongs to the room's Bay", async () => {
    // agent-x is the guest's (bay-guest), visiting maintainer/maity: its upload is of its own Bay.
    const own = await uploaded(hub, "agt-x", { bayId: "bay-guest" });
    const rooms = (await agentCall("GET", "/conversations", undefined, tokens["agt-x"])).body.conversations as {
      id: string;
      title: string | null;
    }[];
    const room = rooms.find((r) => r.title === "Release 0.2 go/no-go")?.id as string;
    const sent = await agentCall(
      "POST",
      `/conversations/${room}/messages`,
      { content: "the checklist", attachments: [{ attachmentId: own }] },
      tokens["agt-x"],
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.metadata.attachments[0].attachmentId).toBe(own);
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id: own }, select: { bayId: true } });
    expect(row.bayId).toBe("bay-maintainer");
    // The room's people read it; the visitor's listing of that room shows it.
    const listed = await agentCall("GET", `/conversations/${room}/attachments`, undefined, tokens["agt-x"]);
    expect(listed.body.files.map((f: { attachmentId: string }) => f.attachmentId)).toContain(own);
    // Another's upload stays refused, whatever Bay it was made in.
    const theirs = await uploaded(hub, "agt-a");
    const refused = await agentCall(
      "POST",
      `/conversations/${room}/messages`,
      { content: "x", attachments: [{ attachmentId: theirs }] },
      tokens["agt-x"],
    );
    expect(refused.status).toBe(409);
  });

  it("B-201 B-202 B-379 linking is all or nothing, the 409 the same whichever id was bad", async () => {
    const sent = await uploaded(hub, "agt-a");
    expect((await send({ content: "first", attachments: [{ attachmentId: sent }] })).status).toBe(201);
    const bad = {
      unknown: "att-doesnotexist0000",
      notTheCallers: await uploaded(hub, "hum-maintainer"),
      alreadyAttached: sent,
      deleted: await uploaded(hub, "agt-a"),
    };
    await hub.db.attachment.update({ where: { id: bad.deleted }, data: { deletedAt: new Date() } });
    const good = await uploaded(hub, "agt-a");
    const before = await count();
    const bodies = new Set<string>();
    for (const id of Object.values(bad)) {
      const res = await send({ content: "x", attachments: [{ attachmentId: good }, { attachmentId: id }] });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("ATTACHMENT_LINK_FAILED");
      expect(JSON.stringify(res.body)).not.toContain(id);
      bodies.add(JSON.stringify(res.body));
    }
    // A repeated id links nothing either.
    const twice = await send({ content: "x", attachments: [{ attachmentId: good }, { attachmentId: good }] });
    bodies.add(JSON.stringify(twice.body));
    expect(twice.status).toBe(409);
    expect(bodies.size).toBe(1);
    expect(await count()).toBe(before);
    const still = await hub.db.attachment.findUniqueOrThrow({ where: { id: good }, select: { eventSeq: true } });
    expect(still.eventSeq).toBeNull();
  });

  it("B-201 the same upload sent twice at once: one message carries it, the other send is 409 and writes nothing", async () => {
    const id = await uploaded(hub, "agt-a");
    const before = await count();
    const results = await Promise.all(
      [1, 2].map((n) => send({ content: `race ${n}`, attachments: [{ attachmentId: id }] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await count()).toBe(before + 1);
  });

  it("a retried send with files (same Idempotency-Key) answers the first message", async () => {
    const id = await uploaded(hub, "agt-a");
    const body = { content: "once", attachments: [{ attachmentId: id }], clientMessageId: `retry-${id}` };
    const first = await send(body);
    expect(first.status).toBe(201);
    const again = await send(body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.metadata.attachments[0].attachmentId).toBe(id);
    // Another send naming the same (now sent) file is refused.
    const other = await send({ ...body, clientMessageId: `other-${id}` });
    expect(other.status).toBe(409);
  });

  it("B-199 OQ-B-13 attachments and attachmentId together → 400 ATTACHMENTS_CONFLICT", async () => {
    const a = await uploaded(hub, "agt-a");
    const res = await send({ content: "x", attachments: [{ attachmentId: a }], attachmentId: a });
    expect(res).toMatchObject({ status: 400, body: { code: "ATTACHMENTS_CONFLICT" } });
  });

  it("B-200 OQ-B-15 metadata.type with attachments → 400 naming the field", async () => {
    const a = await uploaded(hub, "agt-a");
    const res = await send({ content: "x", attachments: [{ attachmentId: a }], metadata: { type: "image" } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.fields)).toEqual(["metadata.type"]);
  });

  it("B-181 OQ-B-12 zero or eleven files → 400; nothing written", async () => {
    const before = await count();
    expect((await send({ content: "x", attachments: [] })).status).toBe(400);
    const eleven = await Promise.all(Array.from({ length: 11 }, () => uploaded(hub, "agt-a")));
    const res = await send({ content: "x", attachments: eleven.map((attachmentId) => ({ attachmentId })) });
    expect(res.status).toBe(400);
    expect(res.body.fields).toHaveProperty("attachments");
    expect(await count()).toBe(before);
  });

  it("B-181 B-182 a sender may not forge metadata.attachments or the mirror", async () => {
    for (const k of ["attachments", "attachmentId", "attachmentUrl"]) {
      const res = await send({ content: "x", metadata: { [k]: "forged" } });
      expect(res.status).toBe(400);
    }
  });

  it("B-222 a card with attachments → 400 CARD_WITH_ATTACHMENTS; nothing written, the file still unsent", async () => {
    const a = await uploaded(hub, "agt-a");
    const before = await count();
    const res = await send({
      content: "x",
      attachments: [{ attachmentId: a }],
      card: { type: "card.email", payload: { subject: "Invoice" } },
    });
    expect(res).toMatchObject({ status: 400, body: { code: "CARD_WITH_ATTACHMENTS" } });
    expect(await count()).toBe(before);
    expect((await hub.db.attachment.findUniqueOrThrow({ where: { id: a } })).eventSeq).toBeNull();
  });
});

describe("sending files (Maity)", () => {
  it("M-030 a picture without words; the conflict names no id and writes nothing", async () => {
    const mine = await uploaded(hub, "hum-guest", { mimeType: "image/png" });
    const posted = await rest("POST", `${P}/conversations/${cnv}/messages`, {
      token: tokens["hum-guest"],
      body: { body: "", attachments: [mine] },
    });
    expect(posted.status).toBe(201);
    expect(posted.body.attachments.map((a: { id: string }) => a.id)).toEqual([mine]);
    const before = await count();
    const other = await uploaded(hub, "hum-maintainer");
    const refused = await rest("POST", `${P}/conversations/${cnv}/messages`, {
      token: tokens["hum-guest"],
      body: { body: "hi", attachments: [other] },
    });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).not.toContain(other);
    const empty = await rest("POST", `${P}/conversations/${cnv}/messages`, {
      token: tokens["hum-guest"],
      body: { body: " " },
    });
    expect(empty.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it("M-030 POST …/events type chat takes attachments the same way", async () => {
    const id = await uploaded(hub, "hum-maintainer");
    const res = await rest("POST", `${P}/events`, {
      token: tokens["hum-maintainer"],
      body: { type: "chat", conversation_id: cnv, body: "see attached", attachments: [id] },
    });
    expect(res.status).toBe(201);
    expect(res.body.attachments).toEqual([expect.objectContaining({ id, type: "file" })]);
  });
});

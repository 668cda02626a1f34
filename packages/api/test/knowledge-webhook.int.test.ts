import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { FILES_LINE, NOTES_PREAMBLE, webhookDeliverySchema } from "@maity/domain";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploaded } from "./attachments.ts";
import { ADMIN, createWithVisitors, restClient, testHub } from "./helpers.ts";

// The brief and the notes in a webhook bot's instructions (004 v1.15 B-169, v1.17 B-167, B-170…B-174):
// the last block of `instructions`, in the spec's template and order, byte-identical from one delivery
// to the next while nothing changed (a provider's prompt cache holds) — `instructionsSha256` beside
// it says so — and the body's `project.notes` metadata. A visiting agent's block has neither the brief
// nor the project's notes (B-248, B-274).

const hub = await testHub({
  webhooks: {
    backoffMs: [50, 50],
    timeoutMs: 2000,
    allow: ["127.0.0.1"],
    lookup: async () => [],
  },
  limits: { agent: 100_000 },
});
const rest = restClient(hub);
const P = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};
type Body = {
  message: { content: string };
  instructions: string;
  instructionsSha256: string;
  context: { instructions: string; instructionsSha256: string };
  project: { id: string; name: string; version: number; notes: unknown };
};
const got = new Map<string, Body[]>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body;
    const who = (req.url ?? "").slice(1);
    got.set(who, [...(got.get(who) ?? []), body]);
    res.writeHead(200).end("ok");
  });
});
let base = "";
let room = "";
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await hub.close();
});

const as = (who: string) => ({ token: tokens[who] as string });
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const say = (body: string) =>
  rest("POST", `${P}/conversations/${room}/messages`, { ...as("hum-maintainer"), body: { body } });
/** Waits (bounded) until `who` received `n` bodies. */
async function received(who: string, n: number): Promise<Body[]> {
  for (let i = 0; i < 600 && (got.get(who)?.length ?? 0) < n; i++) await new Promise((r) => setTimeout(r, 50));
  const list = got.get(who) ?? [];
  expect(list.length).toBeGreaterThanOrEqual(n);
  return list;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a", "agt-x"]) {
    const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    tokens[id] = minted.body.token;
  }
  const made = await createWithVisitors(rest, P, (id) => tokens[id] as string, "hum-maintainer", {
    title: "Knowledge room",
    participants: ["agt-a", "agt-x"],
  });
  room = made.body.id;
  for (const id of ["agt-a", "agt-x"]) {
    const set = await rest("POST", "/api/agent-api/webhook", {
      ...as(id),
      body: { url: `${base}/${id}`, secret: "a-secret-of-twenty-chars" },
    });
    expect(set.status).toBe(200);
  }
});

describe("the knowledge block of a webhook's instructions", () => {
  const notes: Record<string, { id: string; version: number }> = {};

  it("B-169 B-170 B-171 B-172 B-173 B-167 the brief, the pinned notes and the shelf, in the template's order", async () => {
    await rest("PUT", `${P}/brief`, { ...as("hum-maintainer"), body: { brief: "Ship small.\nTest first.\n" } });
    const create = async (path: string, title: string, body: string, pinned: boolean) => {
      const made = await rest("POST", path, { ...as("hum-maintainer"), body: { title, body, pinned } });
      expect(made.status).toBe(201);
      notes[title] = made.body;
    };
    await create(`${P}/notes`, "Tiers", "Free and Team.", true);
    await create(`${P}/notes`, "Glossary", "Bay: a workspace.", true);
    await create(`${P}/conversations/${room}/notes`, "Room rule", "Tag from main.", true);
    await create(`${P}/notes`, "Old plan", "x", false);
    await create(`${P}/conversations/${room}/notes`, "Chat idea", "y", false);
    await say("first");
    const [body] = await received("agt-a", 1);
    if (!body) throw new Error("no body");
    expect(webhookDeliverySchema.safeParse(body).success).toBe(true);
    const block = [
      'Project brief ("Maity"):\nShip small.\nTest first.',
      NOTES_PREAMBLE,
      "Pinned notes (always here; keep them in mind):\n### Tiers\nFree and Team.\n\n### Glossary\nBay: a workspace.",
      "Chat notes pinned for this chat:\n### Room rule\nTag from main.",
      `Notes on the shelf (open one with get_note, id in brackets):\n- Chat idea [${notes["Chat idea"]?.id}]\n- Old plan [${notes["Old plan"]?.id}]`,
    ].join("\n\n");
    expect(body.instructions.endsWith(`\n\n${block}`)).toBe(true);
    expect(body.instructions).not.toContain(FILES_LINE);
    expect(body.instructionsSha256).toBe(sha(body.instructions));
    expect(body.context.instructions).toBe(body.instructions);
    expect(body.context.instructionsSha256).toBe(body.instructionsSha256);
    expect(body.project).toMatchObject({ name: "Maity", version: 1 });
    expect(body.project.notes).toEqual({
      pinned: ["Tiers", "Glossary", "Room rule"].map((t) => ({ id: notes[t]?.id, title: t, version: 1 })),
      shelfCount: 2,
      fileCount: 0,
    });
  });

  it("B-248 B-274 a visiting agent's block holds this chat's notes only: no brief, no project note", async () => {
    const [body] = await received("agt-x", 1);
    if (!body) throw new Error("no body");
    expect(body.instructions).not.toContain("Project brief");
    expect(body.instructions).not.toContain("### Tiers");
    expect(body.instructions).toContain("Chat notes pinned for this chat:\n### Room rule\nTag from main.");
    expect(body.instructions).toContain(`- Chat idea [${notes["Chat idea"]?.id}]`);
    expect(body.instructions).not.toContain("Old plan");
    expect(body.project.notes).toMatchObject({ pinned: [{ title: "Room rule" }], shelfCount: 1 });
  });

  it("B-169 1,000 deliveries with nothing changed carry one instructions sha256; an edit changes the block from that note on", async () => {
    const before = (await received("agt-a", 1)).length;
    for (let i = 0; i < 1000; i += 20) await Promise.all(Array.from({ length: 20 }, (_, j) => say(`message ${i + j}`)));
    // Deliveries to one agent may overlap: the bodies are found by their message, not their order.
    const bodies = (await received("agt-a", before + 1000)).filter((b) => /^message \d+$/.test(b.message.content));
    expect(bodies).toHaveLength(1000);
    const hashes = new Set(bodies.map((b) => b.instructionsSha256));
    expect(hashes.size).toBe(1);
    const old = bodies[0]?.instructions ?? "";
    expect(sha(old)).toBe([...hashes][0]);

    // Editing the chat's pinned note: the bytes before it stay; the block differs only from it onward.
    const rule = notes["Room rule"];
    const edited = await rest("PATCH", `${P}/notes/${rule?.id}`, {
      ...as("hum-maintainer"),
      body: { base_version: rule?.version, body: "Tag from main, signed." },
    });
    expect(edited.body.version).toBe(2);
    await say("after the edit");
    const after = (await received("agt-a", before + 1001)).find((b) => b.message.content === "after the edit");
    if (!after) throw new Error("no body after the edit");
    expect(after.instructionsSha256).not.toBe(bodies[0]?.instructionsSha256);
    let same = 0;
    while (same < old.length && old[same] === after.instructions[same]) same++;
    expect(same).toBeGreaterThan(old.indexOf("### Room rule"));
    expect(after.instructions.slice(same)).toMatch(/^, signed\./);
    expect(after.project.notes).toMatchObject({
      pinned: expect.arrayContaining([{ id: rule?.id, title: "Room rule", version: 2 }]),
    });
  });

  it("B-274 shared with visitors: the visitor's block carries the brief as the visited Bay's room text, and the project's notes", async () => {
    const before = (got.get("agt-x") ?? []).length;
    const shared = await rest("PATCH", P, { ...as("hum-maintainer"), body: { share_with_visitors: true } });
    expect(shared.body).toMatchObject({ share_with_visitors: true });
    await say("shared now");
    const body = (await received("agt-x", before + 1)).find((b) => b.message.content === "shared now");
    if (!body) throw new Error("no body after sharing");
    expect(body.instructions).toContain(
      'Room text of the visited Bay maintainer — project brief ("Maity"):\nShip small.',
    );
    expect(body.instructions).toContain("### Tiers");
    await rest("PATCH", P, { ...as("hum-maintainer"), body: { share_with_visitors: false } });
  });

  it("B-174 B-168 the Files line, without a count, once the agent's list_files here lists a library file", async () => {
    const before = (got.get("agt-a") ?? []).length;
    const file = await uploaded(hub, "hum-maintainer", { name: "handbook.pdf" });
    const added = await rest("POST", `${P}/library`, { ...as("hum-maintainer"), body: { attachment_id: file } });
    expect(added.status).toBeLessThan(300);
    await say("a file in the library");
    const body = (await received("agt-a", before + 1)).find((b) => b.message.content === "a file in the library");
    if (!body) throw new Error("no body after the library file");
    expect(body.instructions.slice(-300)).toMatch(new RegExp(`\n\n${FILES_LINE.replace(/[()]/g, "\\$&")}$`));
    expect(body.project.notes).toMatchObject({ fileCount: 1 });
  });

  it("B-285 B-284 after a crossing the next body carries the 90 % notice, once, as its last member", async () => {
    const before = (got.get("agt-a") ?? []).length;
    const crossed = await rest("POST", "/api/agent-api/context", {
      ...as("agt-a"),
      body: { event: "usage", runtime: "other", used: 92, size: 100 },
    });
    expect(crossed.status).toBe(200);
    await say("notice one");
    await say("notice two");
    const bodies = (await received("agt-a", before + 2)).slice(before) as (Body & { notice?: unknown })[];
    const carrying = bodies.filter((b) => b.notice);
    expect(carrying).toHaveLength(1);
    expect(carrying[0]?.notice).toMatchObject({ kind: "context_high", percent: 92 });
    expect(Object.keys(carrying[0] ?? {}).at(-1)).toBe("notice");
    expect(webhookDeliverySchema.safeParse(carrying[0]).success).toBe(true);
  });
});

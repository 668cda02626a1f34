import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// Context reports (004 v1.16–v1.17, B-275…B-288; DESIGN §4b "Context rings", "Quiet lines"): an
// agent reports how full its memory is; people see a ring on it; a tidy posts one quiet line per
// chat; the 90 % notice is handed once to a client that asked for it.

const hub = await testHub({ limits: { agent: 1_000_000, updates: 1_000_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const A = "/api/agent-api";
const tokens: Record<string, string> = {};
const as = (who: string) => ({ token: tokens[who] as string });
const report = (body: unknown, headers: Record<string, string> = {}) =>
  rest("POST", `${A}/context`, { ...as("agt-a"), body, headers });
let room = { id: "", key: "" };

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a"]) {
    const minted = await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } });
    tokens[id] = minted.body.token;
  }
  const made = await rest("POST", `${P}/conversations`, {
    ...as("hum-maintainer"),
    body: { title: "Memory room", participants: ["agt-a", "hum-guest"] },
  });
  const key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: made.body.id }, select: { id: true } }))
    .id;
  room = { id: made.body.id, key };
});

describe("POST /api/agent-api/context (B-275…B-277, B-282)", () => {
  it.each([
    ["B-276 usage without used", { event: "usage", size: 1000 }, "used"],
    ["B-276 usage without size", { event: "usage", used: 10 }, "size"],
    ["B-276 used over 1.5 × size", { event: "usage", used: 1501, size: 1000 }, "used"],
    ["B-276 autoCompactAt over size", { event: "usage", used: 1, size: 1000, autoCompactAt: 1001 }, "autoCompactAt"],
    ["B-276 size over 10,000,000", { event: "usage", used: 1, size: 10_000_001 }, "size"],
    ["B-275 an unknown event", { event: "nap" }, "event"],
    ["B-275 tokens that are not whole", { event: "usage", used: 1.5, size: 10 }, "used"],
  ])("%s → 400 INVALID_CONTEXT_REPORT naming the field (B-374)", async (_, body, field) => {
    const refused = await report(body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("INVALID_CONTEXT_REPORT");
    expect(Object.keys(refused.body.fields)).toContain(field);
  });

  it("B-277 B-288 overflow needs no numbers and starts nothing; B-282 a conversationId the agent is not in is ignored", async () => {
    expect(await report({ event: "overflow", runtime: "other" })).toEqual({ status: 200, body: { status: "ok" } });
    const row = await hub.db.agentContext.findUniqueOrThrow({ where: { agentId: "agt-a" } });
    expect(row.overflowAt).not.toBeNull();
    // The owner is told (its "Your agents" page reads this); another owner's agents say nothing of it.
    const owner = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
    const mine = await hub.pairing.ownAgents(owner);
    expect(mine.find((a) => a.id === "agt-a")?.overflow_at).toBe(row.overflowAt?.toISOString());
    expect((await report({ event: "compact_start", conversationId: "cnv-not-mine" })).status).toBe(200);
  });
});

describe("the ring on the people's participant lists (B-279, DESIGN §4b)", () => {
  const agentEntry = async () => {
    const view = await rest("GET", `${P}/conversations/${room.id}`, as("hum-maintainer"));
    return view.body.participants.find((p: { member_id: string }) => p.member_id === "agt-a");
  };

  it("B-279 a usage report sets the ring: percent, source, runtime, reported_at; in the list too", async () => {
    expect((await agentEntry()).context).toBeNull();
    expect(
      (
        await report({
          event: "usage",
          runtime: "claude-code",
          source: "exact",
          used: 420_000,
          size: 1_000_000,
          autoCompactAt: 967_000,
        })
      ).status,
    ).toBe(200);
    const ring = (await agentEntry()).context;
    // Where the runtime compacts by itself, as a percent of the window, and the tidies this session.
    expect(ring).toMatchObject({
      percent: 42,
      source: "exact",
      runtime: "claude-code",
      auto_compact_percent: 96,
      tidies: 0,
    });
    expect(Date.parse(ring.reported_at)).toBeGreaterThan(Date.now() - 60_000);
    const list = await rest("GET", `${P}/conversations?limit=50`, as("hum-maintainer"));
    const item = list.body.items.find((i: { id: string }) => i.id === room.id);
    expect(item.participants.find((p: { member_id: string }) => p.member_id === "agt-a").context).toEqual(ring);
  });

  it("DESIGN §4b a report older than 24 hours is no ring", async () => {
    await hub.db.agentContext.update({
      where: { agentId: "agt-a" },
      data: { reportedAt: new Date(Date.now() - 25 * 60 * 60 * 1000) },
    });
    expect((await agentEntry()).context).toBeNull();
  });
});

describe("tidies: compact_end and session_start (B-280, B-281, B-270)", () => {
  const tidyLines = async () =>
    (
      await rest("GET", `${P}/conversations/${room.id}/messages?after=0&limit=200`, as("hum-maintainer"))
    ).body.items.filter((m: { quiet?: { type: string } }) => m.quiet?.type === "context.compacted");

  it("B-280 compact_end posts one quiet line in each of the agent's chats; a retry posts none; no unread", async () => {
    const before = (await rest("GET", `${P}/conversations/${room.id}`, as("hum-guest"))).body.unread;
    const body = {
      event: "compact_end",
      runtime: "other",
      trigger: "auto",
      beforeTokens: 940_000,
      afterTokens: 58_000,
    };
    expect((await report(body)).status).toBe(200);
    expect((await report(body)).status).toBe(200); // the client retried: the same report
    const lines = await tidyLines();
    expect(lines.map((m: { body: string; quiet: unknown }) => [m.body, m.quiet])).toEqual([
      ["agent-a tidied its memory · 940k → 58k", { type: "context.compacted", actor: "agt-a" }],
    ]);
    // Every chat of the agent has its line (the demo's direct conversation too).
    const direct = await rest("GET", `${P}/conversations/agt-a/messages?after=0&limit=200`, as("hum-maintainer"));
    expect(direct.body.items.some((m: { quiet?: { type: string } }) => m.quiet?.type === "context.compacted")).toBe(
      true,
    );
    expect((await rest("GET", `${P}/conversations/${room.id}`, as("hum-guest"))).body.unread).toBe(before);
    // The same Idempotency-Key is one report even with another body; a new key, a new tidy.
    const keyed = await report({ ...body, beforeTokens: 900_000 }, { "idempotency-key": "tidy-2" });
    expect(keyed, JSON.stringify(keyed.body)).toEqual({ status: 200, body: { status: "ok" } });
    await report({ ...body, beforeTokens: 910_000 }, { "idempotency-key": "tidy-2" });
    expect(await tidyLines()).toHaveLength(2);
    const row = await hub.db.agentContext.findUniqueOrThrow({ where: { agentId: "agt-a" } });
    expect(row.compactions).toBe(2);
  });

  it("B-281 session_start resets the counts", async () => {
    await report({ event: "session_start" });
    const row = await hub.db.agentContext.findUniqueOrThrow({ where: { agentId: "agt-a" } });
    expect(row.compactions).toBe(0);
  });
});

describe("the 90 % notice (B-284…B-287)", () => {
  const updates = (cursor: string | null, features: string) =>
    rest("GET", `${A}/updates?wait=0&features=${features}${cursor ? `&cursor=${cursor}` : ""}`, as("agt-a"));
  const say = (body: string) =>
    rest("POST", `${P}/conversations/${room.id}/messages`, { ...as("hum-maintainer"), body: { body } });

  it("B-284 B-287 a crossing is handed once, to a client that asked; 1,000 re-polls hand it exactly once", async () => {
    const cursor = (await updates(null, "")).body.cursor as string;
    await report({ event: "usage", runtime: "other", used: 91, size: 100 });
    await say("after the crossing");
    // A poller that did not opt in never spends it.
    const plain = await updates(cursor, "brief");
    expect(plain.body.events.length).toBeGreaterThan(0);
    expect(plain.body.events.every((e: object) => !("notice" in e))).toBe(true);
    let handed = 0;
    let text = "";
    for (let i = 0; i < 1000; i++) {
      const answer = await updates(cursor, "notice");
      for (const e of answer.body.events as { notice?: { percent: number; text: string } }[])
        if (e.notice) {
          handed += 1;
          text = e.notice.text;
          expect(e.notice).toMatchObject({ kind: "context_high", percent: 91 });
        }
    }
    expect(handed).toBe(1);
    expect(text).toContain("create_note");
  });

  it("B-286 it is armed again only below 80 %; B-285 a context read that asks carries it", async () => {
    await report({ event: "usage", runtime: "other", used: 95, size: 100 });
    const still = await rest("GET", `${A}/conversations/${room.key}/context?features=notice`, as("agt-a"));
    expect(still.body).not.toHaveProperty("notice");
    await report({ event: "usage", runtime: "other", used: 79, size: 100 });
    await report({ event: "usage", runtime: "other", used: 93, size: 100 });
    const again = await rest("GET", `${A}/conversations/${room.key}/context?features=notice`, as("agt-a"));
    expect(again.body.notice).toMatchObject({ kind: "context_high", percent: 93 });
    // A relay's session (runtime claude-code) is cleared by the relay: no notice.
    await report({ event: "usage", runtime: "claude-code", used: 50, size: 100 });
    await report({ event: "usage", runtime: "claude-code", used: 99, size: 100 });
    expect(
      (await rest("GET", `${A}/conversations/${room.key}/context?features=notice`, as("agt-a"))).body,
    ).not.toHaveProperty("notice");
  });

  it("B-284 concurrent reads after one crossing (two connections on PostgreSQL) hand it once", async () => {
    await report({ event: "usage", runtime: "other", used: 10, size: 100 });
    await report({ event: "usage", runtime: "other", used: 90, size: 100 });
    const reads = await Promise.all(
      Array.from({ length: 24 }, () =>
        rest("GET", `${A}/conversations/${room.key}/context?features=notice`, as("agt-a")),
      ),
    );
    expect(reads.filter((r) => r.body.notice)).toHaveLength(1);
  });
});

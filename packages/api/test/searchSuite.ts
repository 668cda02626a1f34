import type { SearchPage } from "@maity/domain";
import { seedDemo } from "@maity/hub";
import type { HubOptions } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploaded } from "./attachments.ts";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// Message search (issue 31, DESIGN §4d): the index written in the message's own transaction (every
// search here follows its send at once), visibility inside the one statement — windows, an
// observer's window, a visitor's floor, redactions — and the query language, on both engines.

/** The whole suite, on a hub whose search takes one way to its pages (search.int / search-dense.int). */
export async function searchSuite(options: HubOptions = {}) {
  const hub = await testHub({ limits: { agent: 100_000, updates: 100_000 }, ...options });
  const rest = restClient(hub);
  afterAll(() => hub.close());
  const P = "/api/projects/maintainer/maity";
  const A = "/api/agent-api";
  const T: Record<string, string> = {};
  const as = (who: string) => ({ token: T[who] ?? null });
  let scout = "";

  const say = async (who: string, room: string, body: string) => {
    const sent = await rest("POST", `${P}/conversations/${room}/messages`, { ...as(who), body: { body } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    return sent.body as { id: string; seq: number };
  };
  const room = async (title: string, participants: string[], who = "hum-maintainer") => {
    const made = await rest("POST", `${P}/conversations`, { ...as(who), body: { title, participants } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id as string;
  };
  const search = async (who: string, params: Record<string, string | number>) => {
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const r = await rest("GET", `/api/search?${query}`, as(who));
    return r as { status: number; body: SearchPage & { error?: { code: string; details?: { fields?: object } } } };
  };
  const bodies = (page: SearchPage) => page.items.map((i) => i.message.body);
  const keyOf = async (publicId: string) =>
    (await hub.db.conversation.findFirstOrThrow({ where: { publicId }, select: { id: true } })).id;

  let pricing = "";
  beforeAll(async () => {
    await seedDemo(hub);
    await rest("POST", "/api/admin/humans", {
      token: ADMIN,
      body: { handle: "alice", name: "Alice", password: "alice-pass-1" },
    });
    for (const id of ["hum-maintainer", "hum-guest", "hum-alice", "agt-a"])
      T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
    await rest("POST", `${P}/members`, { ...as("hum-maintainer"), body: { handle: "alice" } });
    scout = (await rest("POST", "/api/agents", { ...as("hum-alice"), body: { handle: "scout" } })).body.id;
    T.scout = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: scout } })).body.token;
    pricing = await room("Pricing talk", ["hum-guest", "agt-a"]);
  });

  describe("what matches (DESIGN §4d)", () => {
    it("finds a message the moment its send returns; English stems, the last word as a prefix, case and accents", async () => {
      await say("hum-maintainer", pricing, "We decided the Café pricing yesterday");
      for (const q of ["decided", "deciding", "DECIDE", "pric", "cafe", "CAFÉ", "we decided caf"]) {
        const found = await search("hum-guest", { q });
        expect(bodies(found.body), q).toContain("We decided the Café pricing yesterday");
      }
      // Every word must match; a word only in the middle is not a prefix of anything.
      expect(bodies((await search("hum-guest", { q: "decided tomorrow" })).body)).toEqual([]);
      expect(bodies((await search("hum-guest", { q: "ecided" })).body)).toEqual([]);
    });

    it("a stop word still matches as itself; quoted phrases match in order", async () => {
      await say("hum-maintainer", pricing, "When is the launch? Ship it when ready");
      expect(bodies((await search("hum-guest", { q: "when" })).body)).toContain(
        "When is the launch? Ship it when ready",
      );
      expect(bodies((await search("hum-guest", { q: '"ship it when"' })).body)).toEqual([
        "When is the launch? Ship it when ready",
      ]);
      expect(bodies((await search("hum-guest", { q: '"when it ship"' })).body)).toEqual([]);
      // Punctuation between the phrase's words does not matter.
      expect(bodies((await search("hum-guest", { q: '"launch ship"' })).body)).toEqual([
        "When is the launch? Ship it when ready",
      ]);
    });

    it("highlights are code points of the body: an emoji before the match counts one", async () => {
      await say("hum-maintainer", pricing, "🎉 party time, déjà vu");
      const found = (await search("hum-guest", { q: "party deja" })).body.items[0];
      expect(found?.message.body).toBe("🎉 party time, déjà vu");
      // "🎉" is two UTF-16 units and one code point: "party" starts at 2, "déjà" at 14 (15 in UTF-16).
      expect(found?.highlights).toEqual([
        { start: 2, length: 5 },
        { start: 14, length: 4 },
      ]);
      const points = Array.from(found?.message.body ?? "");
      expect(points.slice(2, 7).join("")).toBe("party");
      expect(points.slice(14, 18).join("")).toBe("déjà");
      // An emoji alone is matched as text.
      expect(bodies((await search("hum-guest", { q: "🎉" })).body)).toEqual(["🎉 party time, déjà vu"]);
    });

    it("a CJK sentence matches by substring, highlighted where it sits", async () => {
      await say("hum-maintainer", pricing, "我们的会议记录在这里");
      for (const q of ["会议记录", "会议", "记录在这"]) {
        const found = (await search("hum-guest", { q })).body.items;
        expect(
          found.map((i) => i.message.body),
          q,
        ).toEqual(["我们的会议记录在这里"]);
      }
      expect((await search("hum-guest", { q: "会议记录" })).body.items[0]?.highlights).toEqual([
        { start: 3, length: 4 },
      ]);
      expect(bodies((await search("hum-guest", { q: "会议室" })).body)).toEqual([]);
    });

    it("operators: from:@handle, in:<chat>, has:file, has:poll, after:/before:", async () => {
      const other = await room("Roadmap", ["hum-guest"]);
      await say("hum-guest", other, "operators roadmap note from guest");
      await say("hum-maintainer", pricing, "operators pricing note from maintainer");
      const q = (extra: string) => search("hum-maintainer", { q: `operators ${extra}`.trim() });
      expect(bodies((await q("from:@guest")).body)).toEqual(["operators roadmap note from guest"]);
      expect(bodies((await q("from:@maintainer")).body)).toEqual(["operators pricing note from maintainer"]);
      expect(bodies((await q("in:roadmap")).body)).toEqual(["operators roadmap note from guest"]);
      expect(bodies((await q('in:"pricing talk"')).body)).toEqual(["operators pricing note from maintainer"]);
      const today = new Date().toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      expect((await q(`after:${today}`)).body.items).toHaveLength(2);
      expect((await q(`after:${tomorrow}`)).body.items).toHaveLength(0);
      expect((await q(`before:${today}`)).body.items).toHaveLength(0);
      expect((await q(`before:${tomorrow}`)).body.items).toHaveLength(2);
      // The REST filters combine with q.
      expect(bodies((await search("hum-maintainer", { q: "operators", from: "hum-guest" })).body)).toEqual([
        "operators roadmap note from guest",
      ]);
      expect(bodies((await search("hum-maintainer", { q: "operators", conversation: other })).body)).toEqual([
        "operators roadmap note from guest",
      ]);
      // has:file — a message with a file (its body optional); has:poll — a poll the agent asked.
      const file = await uploaded(hub, "hum-maintainer");
      const withFile = await rest("POST", `${P}/conversations/${pricing}/messages`, {
        ...as("hum-maintainer"),
        body: { body: "operators spec attached", attachments: [file] },
      });
      expect(withFile.status, JSON.stringify(withFile.body)).toBe(201);
      expect(bodies((await q("has:file")).body)).toEqual(["operators spec attached"]);
      const poll = await rest("POST", `${A}/polls`, {
        ...as("agt-a"),
        body: {
          conversationId: await keyOf(pricing),
          question: "operators: which day?",
          options: ["Monday", "Friday"],
        },
      });
      expect(poll.status, JSON.stringify(poll.body)).toBe(201);
      const polls = (await q("has:poll")).body.items;
      expect(polls).toHaveLength(1);
      expect(polls[0]?.message.card?.type).toBe("card.poll");
      expect((await q("has:card")).body.items.map((i) => i.message.seq)).toEqual(polls.map((i) => i.message.seq));
    });

    it("odd text never fails: marks alone, tsquery syntax, an emoji with its variation selector, year 0, a cursor past the column", async () => {
      await say("hum-maintainer", pricing, "I ❤️ this; mail ann@example.com or see example.com/docs, v1.2.3 can't wait");
      for (const q of [
        "x \u0301",
        "\u0301\u0302",
        "⃣",
        "'&|!():*<>\\",
        "ŉ ʼ ½",
        "a\u200bb",
        "👍🏽 👨‍👩‍👧",
        "עברית",
        "&&&",
        "'",
      ]) {
        const r = await search("hum-guest", { q });
        expect(r.status, JSON.stringify(q)).toBe(200);
      }
      // What the engine's parser keeps whole is found whole: an address, a host, a path, a version.
      for (const q of ["❤️", "ann@example.com", "example.com", "example.com/docs", "v1.2.3", "can't"])
        expect(bodies((await search("hum-guest", { q })).body), q).toEqual([
          "I ❤️ this; mail ann@example.com or see example.com/docs, v1.2.3 can't wait",
        ]);
      for (const params of [
        { q: "after:0000-01-01" },
        { q: "x", after: "0000-01-01" },
        { q: "x", cursor: "nzzzzzz" },
      ] as Record<string, string>[])
        expect((await search("hum-guest", params)).status, JSON.stringify(params)).toBe(400);
      expect((await search("hum-guest", { q: "x", sort: "relevance", cursor: "r1.zzzzzzz" })).status).toBe(400);
    });

    it("a query the language refuses names the field: has:, a day, a foreign cursor", async () => {
      for (const q of ["has:video", "after:2026-13-01", "from:@", ""]) {
        const r = await search("hum-guest", { q });
        expect(r.status, q).toBe(400);
        expect(r.body.error?.details?.fields, q).toHaveProperty("q");
      }
      const r = await search("hum-guest", { q: "pricing", cursor: "not-a-cursor" });
      expect(r.status).toBe(400);
      expect(r.body.error?.details?.fields).toHaveProperty("cursor");
    });
  });

  describe("paging (DESIGN §4d: cursors are positions)", () => {
    it("55 matches by 20: three pages, newest first, none twice, none skipped", async () => {
      const r = await room("Paging", ["hum-guest"]);
      const sent: number[] = [];
      for (let i = 1; i <= 55; i++) sent.push((await say("hum-maintainer", r, `pagemark number ${i}`)).seq);
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: SearchPage = (
          await search("hum-guest", { q: "pagemark", limit: 20, ...(cursor ? { cursor } : {}) })
        ).body;
        seen.push(...page.items.map((i) => i.message.seq));
        cursor = page.next_cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual([...sent].reverse());
      // A result opened in its chat: the history around it, the message inside, nothing marked read.
      const marker = async () =>
        (await rest("GET", `${P}/conversations/${r}`, as("hum-guest"))).body.read_marker as number | null;
      const before = await marker();
      const around = await rest("GET", `${P}/conversations/${r}/messages?around=${sent[29]}&limit=10`, as("hum-guest"));
      expect(around.status).toBe(200);
      expect(around.body.items.map((m: { seq: number }) => m.seq)).toEqual(sent.slice(25, 35));
      expect(around.body.earlier).toBe(sent[25]);
      expect(around.body.later).toBe(sent[34]);
      expect(await marker()).toBe(before);
      const edge = await rest("GET", `${P}/conversations/${r}/messages?around=${sent[54]}&limit=10`, as("hum-guest"));
      expect(edge.body.items.map((m: { seq: number }) => m.seq)).toEqual(sent.slice(50, 55));
      expect(edge.body.later).toBeNull();
      const both = await rest("GET", `${P}/conversations/${r}/messages?around=${sent[5]}&after=1`, as("hum-guest"));
      expect(both.status).toBe(400);
    });

    it("sort=relevance pages without repeats, the best match first", async () => {
      const r = await room("Relevance", ["hum-guest"]);
      await say("hum-maintainer", r, "relevant once among many other words here today");
      await say("hum-maintainer", r, "relevant relevant relevant");
      for (let i = 0; i < 8; i++) await say("hum-maintainer", r, `relevant filler ${i}`);
      const seen: number[] = [];
      let cursor: string | null = null;
      let first: string | null = null;
      for (let n = 0; n < 10; n++) {
        const page: SearchPage = (
          await search("hum-guest", { q: "relevant", sort: "relevance", limit: 3, ...(cursor ? { cursor } : {}) })
        ).body;
        first ??= page.items[0]?.message.body ?? null;
        seen.push(...page.items.map((i) => i.message.seq));
        cursor = page.next_cursor;
        if (!cursor) break;
      }
      expect(first).toBe("relevant relevant relevant");
      expect(seen).toHaveLength(10);
      expect(new Set(seen).size).toBe(10);
      // A newest-first cursor is not a relevance cursor.
      const newest = (await search("hum-guest", { q: "relevant", limit: 3 })).body.next_cursor ?? "";
      expect((await search("hum-guest", { q: "relevant", sort: "relevance", cursor: newest })).status).toBe(400);
    });
  });

  describe("only what the caller may read now (DESIGN §4d)", () => {
    it("a late joiner finds nothing from before its join (though history shows it); a former participant nothing", async () => {
      const r = await room("Late join", ["hum-guest"]);
      await say("hum-maintainer", r, "latejoin before alice came");
      await rest("POST", `${P}/conversations/${r}/participants`, {
        ...as("hum-maintainer"),
        body: { member_id: "hum-alice" },
      });
      await say("hum-maintainer", r, "latejoin after alice came");
      expect(bodies((await search("hum-alice", { q: "latejoin" })).body)).toEqual(["latejoin after alice came"]);
      expect(bodies((await search("hum-guest", { q: "latejoin" })).body)).toEqual([
        "latejoin after alice came",
        "latejoin before alice came",
      ]);
      await rest("DELETE", `${P}/conversations/${r}/participants/hum-alice`, as("hum-maintainer"));
      expect((await search("hum-alice", { q: "latejoin" })).body).toEqual({ items: [], next_cursor: null });
    });

    it("an observer finds its agent's chat from the agent's join on; a bystander nothing", async () => {
      // The guest's chat; the maintainer's agent comes in later: the maintainer reads along (§9.2).
      const r = await room("Observed", ["hum-alice"], "hum-guest");
      await say("hum-guest", r, "observed before the agent");
      const added = await rest("POST", `${P}/conversations/${r}/participants`, {
        ...as("hum-guest"),
        body: { member_id: "agt-a" },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      await say("hum-guest", r, "observed after the agent");
      const found = (await search("hum-maintainer", { q: "observed" })).body.items;
      expect(found.map((i) => i.message.body)).toEqual(["observed after the agent"]);
      expect(found[0]?.conversation).toEqual({ kind: "group", title: "Observed" });
    });

    it("a visitor finds nothing from before its placement; its sponsor does", async () => {
      const r = await room("Visited", ["hum-alice"]);
      await say("hum-maintainer", r, "visitfloor before the scout");
      const placed = await rest("POST", `${P}/conversations/${r}/participants`, {
        ...as("hum-alice"),
        body: { member_id: scout, share_history: true },
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(200);
      await say("hum-maintainer", r, "visitfloor after the scout");
      const agent = await rest("GET", `${A}/search?q=visitfloor`, as("scout"));
      expect(agent.status).toBe(200);
      expect(agent.body.results.map((x: { message: { content: string } }) => x.message.content)).toEqual([
        "visitfloor after the scout",
      ]);
      expect(bodies((await search("hum-alice", { q: "visitfloor" })).body)).toHaveLength(2);
    });

    it("a redacted message never matches: its text is gone from the index at once", async () => {
      const r = await room("Redactions", ["hum-guest"]);
      const m = await say("hum-maintainer", r, "redactme the password is hunter2");
      expect(bodies((await search("hum-guest", { q: "hunter2" })).body)).toHaveLength(1);
      const redacted = await rest("POST", `${P}/conversations/${r}/messages/${m.seq}/redact`, {
        ...as("hum-maintainer"),
        body: {},
      });
      expect(redacted.status).toBe(200);
      for (const q of ["hunter2", "redactme", "password"])
        expect(bodies((await search("hum-guest", { q })).body), q).toEqual([]);
      const [row] = await hub.database.sql.query<{ v: string | null }>(
        "SELECT search_vector::text AS v FROM events WHERE seq = $1",
        [m.seq],
      );
      expect(row?.v).toBeNull();
    });

    it("hidden answers exactly like nothing found: another's chat, an unknown chat or project", async () => {
      const r = await room("Private pair", ["hum-guest"]);
      await say("hum-maintainer", r, "hiddenword only for two");
      const none = { items: [], next_cursor: null };
      const alice = await search("hum-alice", { q: "hiddenword" });
      expect(alice).toEqual({ status: 200, body: none });
      expect(await search("hum-alice", { q: "hiddenword", conversation: r })).toEqual({ status: 200, body: none });
      expect(await search("hum-alice", { q: "hiddenword", conversation: "cnv-nothing" })).toEqual({
        status: 200,
        body: none,
      });
      expect(await search("hum-alice", { q: "hiddenword", project: "nobody/nothing" })).toEqual({
        status: 200,
        body: none,
      });
      // An agent outside the chat finds nothing of it, and a room it is not in answers like an empty one.
      const agent = await rest("GET", `${A}/search?q=hiddenword&conversationId=${await keyOf(r)}`, as("scout"));
      expect(agent.body).toEqual({ results: [], nextCursor: null });
      const unknown = await rest("GET", `${A}/search?q=hiddenword&conversationId=nothing-here`, as("scout"));
      expect(unknown.body).toEqual(agent.body);
    });

    it("closed chats and archived projects stay searchable", async () => {
      // Closed: its humans left, the maintainer's agent is still in — the maintainer reads along (§9.2).
      const r = await room("Closing soon", ["hum-guest", "agt-a"]);
      await say("hum-guest", r, "closedchat keeps its words");
      for (const who of ["hum-guest", "hum-maintainer"])
        expect((await rest("DELETE", `${P}/conversations/${r}/participants/${who}`, as(who))).status).toBe(200);
      const closed = await rest("GET", `${P}/conversations/${r}`, as("hum-maintainer"));
      expect(closed.body.closed_at).not.toBeNull();
      expect(bodies((await search("hum-maintainer", { q: "closedchat" })).body)).toEqual([
        "closedchat keeps its words",
      ]);
      expect((await rest("GET", `${A}/search?q=closedchat`, as("agt-a"))).body.results).toHaveLength(1);
      // Archived: its members still find what was said there.
      const made = await rest("POST", "/api/projects", {
        ...as("hum-maintainer"),
        body: { slug: "attic", name: "Attic" },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const attic = "/api/projects/maintainer/attic";
      await rest("POST", `${attic}/members`, { ...as("hum-maintainer"), body: { handle: "guest" } });
      const old = await rest("POST", `${attic}/conversations`, {
        ...as("hum-maintainer"),
        body: { title: "Old days", participants: ["hum-guest"] },
      });
      await rest("POST", `${attic}/conversations/${old.body.id}/messages`, {
        ...as("hum-maintainer"),
        body: { body: "archivedword from the attic" },
      });
      expect((await rest("POST", "/api/admin/projects/maintainer/attic/archive", { token: ADMIN })).status).toBe(200);
      const found = (await search("hum-guest", { q: "archivedword" })).body.items;
      expect(found.map((i) => [i.project.slug, i.message.body])).toEqual([["attic", "archivedword from the attic"]]);
      expect(bodies((await search("hum-guest", { q: "archivedword", project: "maintainer/attic" })).body)).toHaveLength(
        1,
      );
      expect(bodies((await search("hum-guest", { q: "archivedword", project: "maintainer/maity" })).body)).toEqual([]);
    });
  });

  describe("agents: GET /api/agent-api/search (DESIGN §4d)", () => {
    it("the agent's rooms, camelCase messages, its conversationId; a person's token is refused", async () => {
      const r = await room("Agent search", ["hum-guest", "agt-a"]);
      await say("hum-maintainer", r, "agentfind 🎉 this for the agent");
      const found = await rest("GET", `${A}/search?q=agentfind`, as("agt-a"));
      expect(found.status).toBe(200);
      expect(found.body.results).toHaveLength(1);
      expect(found.body.results[0].conversationId).toBe(await keyOf(r));
      expect(found.body.results[0].message.content).toBe("agentfind 🎉 this for the agent");
      expect(found.body.results[0].highlights).toEqual([{ start: 0, length: 9 }]);
      expect(found.body.nextCursor).toBeNull();
      expect((await rest("GET", `${A}/search?q=agentfind`, as("hum-maintainer"))).status).toBe(401);
      // The people's route is a person's: an agent is pointed at its own.
      const people = await rest("GET", "/api/search?q=agentfind", as("agt-a"));
      expect(people.status).toBe(403);
    });
  });
}

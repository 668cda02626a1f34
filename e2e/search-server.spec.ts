import { expect, test } from "@playwright/test";
import { startApp } from "./clients";
import { ENGINES, engineEnv } from "./engines";
import { freePort } from "./helpers";

// Message search on the server as README starts it (issue 31, DESIGN §4d), with plain HTTP as curl
// would, on PGlite and (TEST_DATABASE_URL) PostgreSQL: code-point highlights after an emoji, a CJK
// sentence, an accent, a late joiner, an observer, a visitor, a redaction, 55 matches paged by 20.

const ADMIN = "search-e2e-admin";
const P = "/api/projects/maintainer/maity";

for (const engine of ENGINES) {
  test(`DESIGN §4d search finds only what each reader may read, over HTTP (${engine})`, async () => {
    test.setTimeout(240_000);
    const server = await startApp(
      { MAITY_ADMIN_TOKEN: ADMIN, MAITY_SEED: "1", ...(await engineEnv(engine, "search")) },
      await freePort(),
    );
    const at = async (method: string, route: string, token: string, body?: unknown) => {
      const res = await fetch(`${server.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    };
    const tokenOf = async (member: string) =>
      (await at("POST", "/api/admin/tokens", ADMIN, { member_id: member })).json.token;
    try {
      const maintainer = await tokenOf("hum-maintainer");
      const guest = await tokenOf("hum-guest");
      const agentA = await tokenOf("agt-a");
      // Vera: a person of another Bay, a member here, with an agent of her own (a visitor here).
      expect(
        (await at("POST", "/api/admin/humans", ADMIN, { handle: "vera", name: "Vera", password: "vera-pass-1" }))
          .status,
      ).toBe(201);
      const vera = await tokenOf("hum-vera");
      await at("POST", `${P}/members`, maintainer, { handle: "vera" });
      const scoutId = (await at("POST", "/api/agents", vera, { handle: "scout" })).json.id as string;
      const scout = await tokenOf(scoutId);

      const room = async (token: string, title: string, participants: string[]) => {
        const made = await at("POST", `${P}/conversations`, token, { title, participants });
        expect(made.status, JSON.stringify(made.json)).toBe(201);
        return made.json.id as string;
      };
      const say = async (token: string, chat: string, body: string) => {
        const sent = await at("POST", `${P}/conversations/${chat}/messages`, token, { body });
        expect(sent.status, JSON.stringify(sent.json)).toBe(201);
        return sent.json.seq as number;
      };
      const find = async (token: string, q: string, extra = "") =>
        (await at("GET", `/api/search?q=${encodeURIComponent(q)}${extra}`, token)).json as {
          items: { message: { seq: number; body: string }; highlights: { start: number; length: number }[] }[];
          next_cursor: string | null;
        };
      const bodies = async (token: string, q: string) => (await find(token, q)).items.map((i) => i.message.body);

      // Found as soon as the send returns; an emoji before the match counts one code point.
      const words = await room(maintainer, "Words", ["hum-guest", "agt-a"]);
      await say(maintainer, words, "🎉 Café pricing decided");
      await say(maintainer, words, "我们的会议记录在这里");
      const emoji = (await find(guest, "cafe decid")).items[0];
      expect(emoji?.message.body).toBe("🎉 Café pricing decided");
      expect(emoji?.highlights).toEqual([
        { start: 2, length: 4 },
        { start: 15, length: 7 },
      ]);
      expect((await find(guest, "会议")).items[0]?.highlights).toEqual([{ start: 3, length: 2 }]);
      // The agent finds it in its room, as data: never a request to answer.
      const byAgent = await at("GET", "/api/agent-api/search?q=pricing", agentA);
      expect(byAgent.json.results.map((r: { message: { content: string } }) => r.message.content)).toEqual([
        "🎉 Café pricing decided",
      ]);
      expect(byAgent.json.results[0].message.shouldRespond).toBe(false);

      // A late joiner; an observer (the maintainer's agent joins the guest's chat later); a visitor.
      const late = await room(maintainer, "Late", ["hum-guest"]);
      await say(maintainer, late, "lateword before vera");
      await at("POST", `${P}/conversations/${late}/participants`, maintainer, { member_id: "hum-vera" });
      await say(maintainer, late, "lateword after vera");
      expect(await bodies(vera, "lateword")).toEqual(["lateword after vera"]);
      const watched = await room(guest, "Watched", ["hum-vera"]);
      await say(guest, watched, "watchword before the agent");
      await at("POST", `${P}/conversations/${watched}/participants`, guest, { member_id: "agt-a" });
      await say(guest, watched, "watchword after the agent");
      expect(await bodies(maintainer, "watchword")).toEqual(["watchword after the agent"]);
      await say(maintainer, late, "visitword before the scout");
      const placed = await at("POST", `${P}/conversations/${late}/participants`, vera, {
        member_id: scoutId,
        share_history: true,
      });
      expect(placed.status, JSON.stringify(placed.json)).toBe(200);
      await say(maintainer, late, "visitword after the scout");
      const visitor = await at("GET", "/api/agent-api/search?q=visitword", scout);
      expect(visitor.json.results.map((r: { message: { content: string } }) => r.message.content)).toEqual([
        "visitword after the scout",
      ]);

      // A redaction takes the words out at once.
      const secret = await say(maintainer, words, "secretword hunter2");
      expect(await bodies(guest, "hunter2")).toHaveLength(1);
      await at("POST", `${P}/conversations/${words}/messages/${secret}/redact`, maintainer, {});
      expect(await bodies(guest, "hunter2")).toEqual([]);
      expect(await bodies(guest, "secretword")).toEqual([]);

      // 55 matches paged by 20: three pages, newest first, none twice.
      const paging = await room(maintainer, "Paging", ["hum-guest"]);
      const sent: number[] = [];
      for (let i = 0; i < 55; i++) sent.push(await say(maintainer, paging, `pageword ${i}`));
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await find(guest, "pageword", `&limit=20${cursor ? `&cursor=${cursor}` : ""}`);
        seen.push(...page.items.map((i) => i.message.seq));
        cursor = page.next_cursor;
        pages++;
      } while (cursor && pages < 5);
      expect(pages).toBe(3);
      expect(seen).toEqual(sent.reverse());
    } finally {
      server.child.kill("SIGTERM");
    }
  });
}

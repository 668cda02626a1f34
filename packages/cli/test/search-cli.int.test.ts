import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { agentSearchOutput } from "@maity/domain";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, testHub } from "../../api/test/helpers.ts";
import { marked } from "../src/agent/search.ts";
import { parseCommand } from "../src/commands.ts";
import { hubCall, run, tempDir } from "./helpers.ts";

// `maity search <words…>` on the binary against a real hub on 127.0.0.1 (DESIGN §4d): the agent's
// rooms, grouped, the match marked «…» by code points, --room, --json typed by the route's schema.

const hub = await testHub({ limits: { agent: 10_000 } });
let api: ApiServer;
const T: Record<string, string> = {};
const P = "/api/projects/maintainer/maity";
let room = { id: "", key: "" };
const env = (dir = tempDir("search")) => ({
  HOME: dir,
  MAITY_CONFIG_DIR: path.join(dir, "cfg"),
  MAITY_TOKEN: T["agt-a"] ?? "",
  MAITY_API_URL: api.url,
});
const say = (body: string) =>
  hubCall(api.url, "POST", `${P}/conversations/${room.id}/messages`, T["hum-maintainer"] ?? "", { body });

beforeAll(async () => {
  await seedDemo(hub);
  api = await startApiServer(hub, { adminToken: ADMIN });
  for (const id of ["hum-maintainer", "agt-a"]) {
    const minted = await hubCall(api.url, "POST", "/api/admin/tokens", ADMIN, { member_id: id });
    T[id] = minted.body.token;
  }
  const made = await hubCall(api.url, "POST", `${P}/conversations`, T["hum-maintainer"] ?? "", {
    title: "CLI search",
    participants: ["agt-a", "hum-guest"],
  });
  const key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: made.body.id }, select: { id: true } }))
    .id;
  room = { id: made.body.id, key };
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});

describe("maity search (DESIGN §4d)", () => {
  it("parses the words unquoted, --room, --limit; refuses none and a bad limit", () => {
    expect(parseCommand(["search", "release", "plan", "--room", "c1", "--limit", "5"]).command).toEqual({
      kind: "search",
      q: "release plan",
      room: "c1",
      limit: 5,
    });
    expect(() => parseCommand(["search"])).toThrow("<words>");
    expect(() => parseCommand(["search", "x", "--limit", "99"])).toThrow("--limit");
  });

  it("marks matches by code points: an emoji before the match does not shift it", () => {
    expect(marked("🎉 party time", [{ start: 2, length: 5 }])).toBe("🎉 «party» time");
    // Control characters inside a match are made harmless like the rest of the text.
    expect(marked("a\u001b[2Jb", [{ start: 0, length: 1 }])).toBe("«a»\uFFFD[2Jb");
  });

  it("finds the room's message, grouped under the room, the match marked; --json is the route's shape", async () => {
    await say("🎉 The pricing decision: we ship Friday");
    await say("An unrelated line about lunch");
    const shown = await run(["search", "pricing", "decis"], env());
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split("\n");
    expect(lines[0]).toBe(`${room.key} [GROUP] CLI search`);
    expect(lines[1]).toMatch(
      /^ {2}\d{4}-\d\d-\d\d \[\d\d:\d\d\] Maintainer \([^)]*\): 🎉 The «pricing» «decision»: we ship Friday · /,
    );
    expect(shown.stdout).not.toContain("lunch");
    expect(shown.stdout).not.toContain("→ you should respond");

    const asJson = await run(["search", "pricing", "--room", room.key, "--json"], env());
    expect(asJson.code, asJson.stderr).toBe(0);
    const parsed = agentSearchOutput.parse(JSON.parse(asJson.stdout));
    expect(parsed.results.map((r) => r.message.content)).toEqual(["🎉 The pricing decision: we ship Friday"]);
    expect(parsed.results[0]?.highlights).toEqual([{ start: 6, length: 7 }]);

    const none = await run(["search", "nothing-like-this-zzq"], env());
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("no message you can read matches");
  });

  it("pages with --cursor: the next page's hint on stderr, no result twice", async () => {
    for (let i = 0; i < 5; i++) await say(`cursorword number ${i}`);
    const first = await run(["search", "cursorword", "--limit", "3"], env());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("--limit 3 --cursor ");
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const second = await run(["search", "cursorword", "--limit", "3", "--cursor", cursor ?? ""], env());
    const numbers = (s: string) => [...s.matchAll(/cursorword» number (\d)/g)].map((m) => m[1]);
    expect(numbers(first.stdout)).toEqual(["4", "3", "2"]);
    expect(numbers(second.stdout)).toEqual(["1", "0"]);
    expect(second.stderr).not.toContain("--cursor");
  });
});

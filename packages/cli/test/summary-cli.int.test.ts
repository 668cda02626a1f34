import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { agentSummaryAnswerSchema } from "@maity/domain";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, testHub } from "../../api/test/helpers.ts";
import { parseCommand } from "../src/commands.ts";
import { hubCall, run, tempDir } from "./helpers.ts";

// `maity summary <room>` on the binary against a real hub on 127.0.0.1 (004 §6, B-105…B-109):
// the label first, the record with its cited ids, the raw messages after the boundary as lines.

const hub = await testHub({ limits: { agent: 10_000 } });
let api: ApiServer;
const T: Record<string, string> = {};
const P = "/api/projects/maintainer/maity";
let room = { id: "", key: "" };
const env = (dir = tempDir("summary")) => ({
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
    title: "CLI summary",
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

describe("maity summary", () => {
  it("parses summary <conversation_id>", () => {
    expect(parseCommand(["summary", "c1"]).command).toEqual({ kind: "summary", conversationId: "c1" });
    expect(() => parseCommand(["summary"])).toThrow("<conversation_id>");
  });

  it("B-105 B-109 B-111 no summary yet: the label, unavailable, and the messages", async () => {
    await say("We decided to tag 0.3 on Monday.");
    const shown = await run(["summary", room.key], env());
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^DERIVED_UNTRUSTED_CONTEXT — a machine-made summary, possibly wrong/);
    expect(lines[1]).toMatch(/^status: unavailable — no summary yet/);
    expect(shown.stdout).toContain("messages after it: 1");
    expect(shown.stdout).toMatch(/\] Maintainer \([^)]*\): We decided to tag 0\.3 on Monday\./);
  });

  it("B-106 B-107 B-108 the record with cited ids, then the raw tail marked for this agent", async () => {
    for (let i = 0; i < 22; i++) await say(`Release check ${i}: ${i * 2} of 44 tests pass on staging.`);
    await run(["summary", room.key], env());
    await hub.summaries.records.settle();
    await say("@agent-a can you draft the changelog?");
    const shown = await run(["summary", room.key], env());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^status: fresh; covers the chat up to evt-\d+ \(/m);
    expect(shown.stdout).toMatch(/decisions:\n {2}- Maintainer: We decided to tag 0\.3 on Monday\. {2}\[evt-\d+\]/);
    expect(shown.stdout).toContain("messages after it: 1");
    expect(shown.stdout).toMatch(/@agent-a can you draft the changelog\? → you should respond/);
    const asJson = await run(["summary", room.key, "--json"], env());
    const answer = agentSummaryAnswerSchema.parse(JSON.parse(asJson.stdout));
    expect(answer.summary?.label).toBe("DERIVED_UNTRUSTED_CONTEXT");
    expect(answer.messages).toHaveLength(1);
  });

  it("a room the agent is not in: one line on stderr, exit 1", async () => {
    const shown = await run(["summary", "cnv-nope"], env());
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/NOT_PARTICIPANT|not a participant/);
  });
});

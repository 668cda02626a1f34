import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, testHub } from "../../api/test/helpers.ts";
import { hubCall, run, tempDir } from "./helpers.ts";

// Attachments, polls and reactions on the `maity` binary against a real hub on 127.0.0.1 (004 §10,
// v1.12): send --file, files, download, poll, vote, react.

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000, ws: 10_000, preauth: 10_000 } });
let api: ApiServer;
const T: Record<string, string> = {};

const http = (method: string, route: string, token: string, body?: unknown) =>
  hubCall(api.url, method, route, token, body);
const env = (dir = tempDir("media")) => ({
  HOME: dir,
  MAITY_CONFIG_DIR: path.join(dir, "cfg"),
  MAITY_TOKEN: T["agt-a"] ?? "",
  MAITY_API_URL: api.url,
});
/** The seed's group room, by its agent-side id. */
async function room(): Promise<string> {
  const rooms = await http("GET", "/api/agent-api/conversations", T["agt-a"] ?? "");
  const group = (rooms.body.conversations as { id: string; title: string | null }[]).find(
    (r) => r.title === "Release 0.2 go/no-go",
  );
  if (!group) throw new Error("no group room");
  return group.id;
}

beforeAll(async () => {
  await seedDemo(hub);
  api = await startApiServer(hub, { adminToken: ADMIN });
  for (const id of ["hum-maintainer", "agt-a"]) {
    const minted = await http("POST", "/api/admin/tokens", ADMIN, { member_id: id });
    T[id] = minted.body.token;
  }
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});

describe("maity poll, vote, react (v1.12)", () => {
  it("B-226 B-228 poll puts a poll in the room; vote takes the answers' numbers from 1; react and --remove", async () => {
    const key = await room();
    const poll = await run(["poll", key, "Ship friday?", "Yes", "No", "--json"], env());
    expect(poll.code, poll.stderr).toBe(0);
    const message = JSON.parse(poll.stdout) as { id: string; cardPayload: { pollId: string } };
    const pollId = message.cardPayload.pollId;
    const vote = await run(["vote", pollId, "2"], env());
    expect(vote.code, vote.stderr).toBe(0);
    expect(vote.stdout).toBe(`poll ${pollId}: 1 voter(s); answer 2: 1; your vote: 2\n`);
    const withdraw = await run(["vote", pollId], env());
    expect(withdraw.stdout).toBe(`poll ${pollId}: 0 voter(s); no votes; your vote: none\n`);
    const react = await run(["react", key, message.id, "👍"], env());
    expect(react.code, react.stderr).toBe(0);
    expect(react.stdout).toBe(`reactions on ${message.id}: 👍 1\n`);
    const unreact = await run(["react", key, message.id, "👍", "--remove"], env());
    expect(unreact.stdout).toBe(`reactions on ${message.id}: none\n`);
  });
});

describe("maity send --file, files, download (004 §10)", () => {
  it("B-213 eleven --file are refused (exit 2) before anything is uploaded", async () => {
    const key = await room();
    const files = Array.from({ length: 11 }, (_, i) => ["--file", `f${i}.txt`]).flat();
    const refused = await run(["send", key, "too many", ...files], env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("at most 10 --file on one message, got 11");
  });

  it("B-214 a file type not allowed, or a missing file, is refused before the first upload", async () => {
    const dir = tempDir("types");
    const ok = path.join(dir, "ok.txt");
    writeFileSync(ok, "fine");
    const key = await room();
    const exe = await run(["send", key, "x", "--file", ok, "--file", path.join(dir, "tool.exe")], env());
    expect(exe.code).toBe(1);
    expect(exe.stderr).toContain("tool.exe: not an uploadable file type");
    const missing = await run(["send", key, "x", "--file", ok, "--file", path.join(dir, "gone.pdf")], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("gone.pdf: no such file; nothing was uploaded");
  });

  it("B-181 B-216 B-215 send --file ×2, the room's lines show both, files lists them, download saves and suffixes", async () => {
    const dir = tempDir("files");
    const a = path.join(dir, "plan.txt");
    const b = path.join(dir, "data.csv");
    writeFileSync(a, "the plan");
    writeFileSync(b, "a,b\n1,2\n");
    const key = await room();
    const sent = await run(["send", key, "two files", "--file", a, "--file", b], env());
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^sent evt-\d+ at \d\d:\d\d with 2 file\(s\)\n$/);
    const page = await http("GET", `/api/agent-api/conversations/${key}/messages?limit=5`, T["agt-a"] ?? "");
    const mine = (
      page.body.messages as { content: string; metadata: { attachments: { attachmentUrl: string }[] } }[]
    ).find((m) => m.content === "two files");
    const urls = mine?.metadata.attachments.map((x) => x.attachmentUrl) ?? [];
    expect(urls).toHaveLength(2);
    const files = await run(["files", key], env());
    expect(files.code, files.stderr).toBe(0);
    expect(files.stdout).toContain('"plan.txt" (file, text/plain, 8 B)');
    expect(files.stdout).toContain('"data.csv" (file, text/csv');
    const downloads = tempDir("dl");
    const first = await run(["download", urls[0] ?? "", "--dir", downloads], env());
    const second = await run(["download", urls[0] ?? "", "--dir", downloads], env());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`saved ${path.join(downloads, "plan.txt")} (8 B)\n`);
    expect(second.stdout).toBe(`saved ${path.join(downloads, "plan (1).txt")} (8 B)\n`);
    expect(readFileSync(path.join(downloads, "plan.txt"), "utf8")).toBe("the plan");
    const off = await run(["download", "https://example.org/api/files/x", "--dir", downloads], env());
    expect(off.code).toBe(1);
    expect(off.stderr).toContain("an attack, not a request");
    expect(existsSync(path.join(downloads, "x"))).toBe(false);
  });

  it("a large file's upload reports its progress on stderr by quarters of the bytes sent; stdout stays the one line", async () => {
    const dir = tempDir("large");
    const big = path.join(dir, "big.csv");
    const rows = Array.from({ length: 60_000 }, (_, i) => `${i},${"x".repeat(40)}`).join("\n");
    writeFileSync(big, rows);
    const key = await room();
    const sent = await run(["send", key, "a large one", "--file", big], env());
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^sent evt-\d+ at \d\d:\d\d with 1 file\(s\)\n$/);
    const lines = sent.stderr.split("\n").filter((l) => /upload|%/.test(l));
    expect(lines[0]).toMatch(/^uploading 1\/1 .*big\.csv \(2\.\d MB\)…$/);
    expect(lines.slice(1, 4)).toEqual([
      expect.stringMatching(/^ {2}25% \(\S+ [kKM]B of 2\.\d MB\)$/),
      expect.stringMatching(/^ {2}50% /),
      expect.stringMatching(/^ {2}75% /),
    ]);
    expect(lines[4]).toMatch(/^uploaded 1\/1 .*big\.csv → att-[0-9a-z]+$/);
  });
});

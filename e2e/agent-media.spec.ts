import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { admin, as } from "./helpers";

// Issue 16 on the shipped server (`pnpm start`, as README says), with the clients users run: curl
// uploads a file with multipart and fetches its signed URL without a token; the agent sends it and
// a card; a human reads both over Maity's REST routes, votes in the agent's poll and reacts; the
// MCP SDK client lists the chat's files over /api/mcp. Each wait is bounded; no time is asserted.

const M = "/api/projects/maintainer/maity";
const AGENT = "agt-media-e2e";

/** sharp as the hub has it (no download: the binary ships in its npm package); the one call used here. */
type Sharp = (
  input: Buffer,
  options: { raw: { width: number; height: number; channels: 4 } },
) => { png(): { toBuffer(): Promise<Buffer> } };
const sharp = createRequire(path.resolve(import.meta.dirname, "../packages/hub/package.json"))("sharp") as Sharp;
/** The smallest PDF file-type knows as PDF (its magic is `%PDF`). */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

function curl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("curl", ["-sS", "--max-time", "30", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** curl -w: the body, then a last line with the status. */
async function curlStatus(args: string[]): Promise<{ status: number; body: string }> {
  const run = await curl([...args, "-w", "\n%{http_code}"]);
  expect(run.code, run.stderr).toBe(0);
  const cut = run.stdout.lastIndexOf("\n");
  return { status: Number(run.stdout.slice(cut + 1)), body: run.stdout.slice(0, cut) };
}

let base = "";
let agentToken = "";
let humanToken = "";
let dm = "";
const dir = mkdtempSync(path.join(tmpdir(), "maity-e2e-media-"));

test.beforeAll(async ({ request }) => {
  base = String(test.info().project.use.baseURL);
  await admin(request, "POST", "/agents", { owner: "maintainer", handle: "media-e2e", description: "Sends files." });
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: AGENT });
  agentToken = (await admin(request, "POST", "/tokens", { member_id: AGENT })).token;
  humanToken = (await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" })).token;
  const rooms = await as(request, agentToken, "GET", "/api/agent-api/conversations");
  dm = rooms.body.conversations.find(
    (r: { type: string; maity: { project: string } }) => r.type === "DM" && r.maity.project === "maintainer/maity",
  ).id;
  // A 2×2 PNG with a half-transparent pixel: transparency really used, so it stays PNG (B-190).
  const rgba = Buffer.from([255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255, 255, 255, 255, 255]);
  writeFileSync(
    path.join(dir, "dot.png"),
    await sharp(rgba, { raw: { width: 2, height: 2, channels: 4 } })
      .png()
      .toBuffer(),
  );
  writeFileSync(path.join(dir, "Quarterly report.pdf"), PDF);
  writeFileSync(path.join(dir, "looks-like.png"), PDF);
});

test("B-185 B-186 B-181 B-182 B-184 curl uploads over multipart; the agent sends the files; the signed URL serves the bytes without a token, and not once changed", async ({
  request,
}) => {
  const auth = ["-H", `Authorization: Bearer ${agentToken}`];
  const uploaded: { attachmentId: string; mimeType: string; fileName: string; size: number }[] = [];
  for (const name of ["dot.png", "Quarterly report.pdf"]) {
    const up = await curlStatus([...auth, "-F", `file=@${path.join(dir, name)}`, `${base}/api/agent-api/attachments`]);
    expect(up.status, up.body).toBe(201);
    uploaded.push(JSON.parse(up.body));
  }
  expect(uploaded[0]).toMatchObject({ mimeType: "image/png", fileName: "dot.png", thumbhash: expect.any(String) });
  expect(uploaded[1]).toMatchObject({ mimeType: "application/pdf", size: PDF.length, thumbhash: null });

  // Bytes that say PDF under a .png name: refused, nothing stored (B-187).
  const lie = await curlStatus([
    ...auth,
    "-F",
    `file=@${path.join(dir, "looks-like.png")}`,
    `${base}/api/agent-api/attachments`,
  ]);
  expect(lie.status, lie.body).toBeGreaterThanOrEqual(400);
  expect(JSON.parse(lie.body)).toMatchObject({ code: expect.any(String), error: expect.any(String) });

  const sent = await as(request, agentToken, "POST", `/api/agent-api/conversations/${dm}/messages`, {
    content: "The chart and the report.",
    attachments: uploaded.map((u) => ({ attachmentId: u.attachmentId })),
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);

  // B-181, B-182: the poll carries both files, in order, with absolute signed URLs and the legacy mirror.
  const page = await as(request, agentToken, "GET", `/api/agent-api/conversations/${dm}/messages?limit=5`);
  const message = page.body.messages.find((m: { id: string }) => m.id === sent.body.id);
  const files = message.metadata.attachments as { attachmentId: string; type: string; attachmentUrl: string }[];
  expect(files.map((f) => [f.attachmentId, f.type])).toEqual([
    [uploaded[0]?.attachmentId, "image"],
    [uploaded[1]?.attachmentId, "file"],
  ]);
  expect(message.metadata).toMatchObject({
    attachmentId: files[0]?.attachmentId,
    attachmentUrl: files[0]?.attachmentUrl,
  });
  expect(JSON.stringify(message.metadata)).not.toContain("Quarterly"); // B-184: no name in metadata
  const url = files[1]?.attachmentUrl as string;
  expect(url.startsWith(`${base}/api/files/`)).toBe(true);

  // B-185: curl fetches it without a token; the name rides in Content-Disposition.
  const saved = path.join(dir, "fetched.pdf");
  const got = await curl(["-D", "-", "-o", saved, url]);
  expect(got.code, got.stderr).toBe(0);
  expect(got.stdout).toMatch(/^HTTP\/1\.1 200/);
  expect(got.stdout.toLowerCase()).toContain("content-type: application/pdf");
  expect(got.stdout).toMatch(/content-disposition: attachment;[^\n]*Quarterly/i);
  expect(readFileSync(saved).equals(PDF)).toBe(true);
  const last = url.at(-1) === "a" ? "b" : "a";
  expect((await curlStatus([`${url.slice(0, -1)}${last}`])).status).toBe(404);

  // M-030: the human reads the same message with §8.7 metadata over Maity's REST route.
  const human = await as(request, humanToken, "GET", `${M}/conversations/${AGENT}/messages?limit=5`);
  const mine = human.body.items.find((m: { body: string }) => m.body === "The chart and the report.");
  expect(mine.attachments).toEqual([
    expect.objectContaining({ id: uploaded[0]?.attachmentId, type: "image", mime_type: "image/png", width: 2 }),
    expect.objectContaining({ id: uploaded[1]?.attachmentId, type: "file", mime_type: "application/pdf" }),
  ]);
});

test("B-217 B-226 B-233 a card and a poll from the agent; the human votes and reacts over REST; the agent reads the tally and the reactions", async ({
  request,
}) => {
  const card = await as(request, agentToken, "POST", `/api/agent-api/conversations/${dm}/messages`, {
    content: "Standup, Monday 9:00 in Room 4",
    card: { type: "card.calendar", payload: { title: "Standup", start: "2026-12-07T09:00:00Z", location: "Room 4" } },
  });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  expect(card.body.cardPayload).toMatchObject({ title: "Standup" });

  const poll = await as(request, agentToken, "POST", "/api/agent-api/polls", {
    conversationId: dm,
    question: "Ship on Friday?",
    options: ["Yes", "No"],
  });
  expect(poll.status, JSON.stringify(poll.body)).toBe(201);
  const pollId = poll.body.cardPayload.pollId as string;

  const human = await as(request, humanToken, "GET", `${M}/conversations/${AGENT}/messages?limit=5`);
  const asked = human.body.items.find((m: { poll?: { id: string } }) => m.poll?.id === pollId);
  expect(asked).toMatchObject({ card: { type: "card.poll" }, poll: { can_vote: true, voter_count: 0 } });
  const voted = await as(request, humanToken, "POST", `${M}/polls/${pollId}/vote`, { option_indexes: [0] });
  expect(voted.status, JSON.stringify(voted.body)).toBe(200);
  expect(voted.body).toMatchObject({ voter_count: 1, mine: [0] });

  const tally = await as(request, agentToken, "GET", `/api/agent-api/polls/${pollId}`);
  expect(tally.body).toMatchObject({
    id: pollId,
    voterCount: 1,
    mine: [],
    canVote: true,
    options: [{ index: 0, count: 1, voters: [{ id: "hum-maintainer", type: "USER" }] }],
  });

  const reacted = await as(
    request,
    humanToken,
    "PUT",
    `${M}/conversations/${AGENT}/messages/${asked.seq}/reactions/${encodeURIComponent("👍")}`,
  );
  expect(reacted.status, JSON.stringify(reacted.body)).toBe(200);
  const page = await as(request, agentToken, "GET", `/api/agent-api/conversations/${dm}/messages?limit=5`);
  expect(page.body.messages.find((m: { id: string }) => m.id === poll.body.id).reactions).toEqual([
    { emoji: "👍", count: 1, reactors: [{ id: "hum-maintainer", type: "USER" }] },
  ]);
});

test("B-203 B-204 the MCP SDK client over /api/mcp lists the chat's files and gets a fresh link", async () => {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "e2e-media", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
    }),
  );
  try {
    const listed = await client.callTool({ name: "list_files", arguments: { conversationId: dm } });
    expect(listed.isError ?? false, JSON.stringify(listed.content)).toBe(false);
    const files = (listed.structuredContent as { files: { attachmentId: string; fileName: string }[] }).files;
    expect(files.map((f) => f.fileName)).toEqual(expect.arrayContaining(["dot.png", "Quarterly report.pdf"]));
    const pdf = files.find((f) => f.fileName === "Quarterly report.pdf")?.attachmentId as string;
    const link = await client.callTool({ name: "get_file", arguments: { conversationId: dm, attachmentId: pdf } });
    expect(link.isError ?? false, JSON.stringify(link.content)).toBe(false);
    const url = (link.structuredContent as { url: string }).url;
    const got = await curlStatus(["-o", "/dev/null", url]);
    expect(got.status).toBe(200);
  } finally {
    await client.close();
  }
});

test("B-213 B-215 the maity binary on the shipped server: send --file, download twice without overwriting", async () => {
  const root = path.resolve(import.meta.dirname, "..");
  const home = mkdtempSync(path.join(tmpdir(), "maity-e2e-media-cli-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, MAITY_TOKEN: agentToken, MAITY_API_URL: base, TZ: "UTC" };
  const maity = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(root, "packages/cli/bin/maity.mjs"), ...args], {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  // B-213: eleven files are refused before anything is uploaded (exit 2).
  const eleven = Array.from({ length: 11 }, () => ["--file", path.join(dir, "dot.png")]).flat();
  expect((await maity(["send", dm, "too many", ...eleven])).code).toBe(2);

  const sent = await maity(["send", dm, "From the CLI", "--file", path.join(dir, "Quarterly report.pdf")]);
  expect(sent.code, sent.stderr).toBe(0);
  expect(sent.stdout).toMatch(/with 1 file/);
  // The link as the agent's poll hands it out (a first `check` anchors at now and shows no history).
  const page = await fetch(`${base}/api/agent-api/conversations/${dm}/messages?limit=3`, {
    headers: { authorization: `Bearer ${agentToken}` },
    signal: AbortSignal.timeout(30_000),
  }).then((r) => r.json() as Promise<{ messages: { content: string; metadata: { attachmentUrl?: string } }[] }>);
  const url = page.messages.find((m) => m.content === "From the CLI")?.metadata.attachmentUrl;
  expect(url).toBeTruthy();

  const into = path.join(home, "in");
  for (const expected of ["Quarterly report.pdf", "Quarterly report (1).pdf"]) {
    const got = await maity(["download", url as string, "--dir", into]);
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(path.join(into, expected)).equals(PDF)).toBe(true);
  }
});

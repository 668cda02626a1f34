import { createServer } from "node:http";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ApiServer, startApiServer } from "../src/node.ts";
import { handleRest } from "../src/rest/index.ts";
import { uploaded } from "./attachments.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// B-181, B-182, B-185 on the pushed surfaces: a webhook body and a /ws event carry metadata.attachments
// with signed URLs, on MAITY_PUBLIC_URL when set (a webhook has no request to take an origin from).

const PUBLIC = "https://hub.example.org";
const hub = await testHub({
  publicUrl: PUBLIC,
  webhooks: { backoffMs: [50], timeoutMs: 1500, allow: ["127.0.0.1"] },
  limits: { agent: 100_000, ws: 10_000 },
});
const rest = restClient(hub);
const P = "/api/projects/maintainer/maity";
const T: Record<string, string> = {};
const bodies: { message: { id: string; metadata: Record<string, unknown> | null } }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    res.writeHead(200).end("ok");
  });
});
let api: ApiServer;
let cnv = "";

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "hum-maintainer"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as { port: number };
  const set = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${T["agt-a"]}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook` }),
    }),
  );
  expect(set.status).toBeLessThan(300);
  const made = await rest("POST", `${P}/conversations`, {
    token: T["hum-maintainer"],
    body: { title: "Delivery", participants: ["agt-a", "hum-guest"] },
  });
  expect(made.status).toBe(201);
  cnv = made.body.id;
  api = await startApiServer(hub, { sockets: { helloTimeoutMs: 2000, pingIntervalMs: 1000, idleCursorMs: 1000 } });
});
afterAll(async () => {
  await api.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await hub.close();
});

const verifies = (url: unknown, id: string) => {
  const u = new URL(String(url));
  return (
    u.origin === PUBLIC &&
    u.pathname === `/api/files/${id}` &&
    hub.fileKeys.verify(id, u.searchParams.get("exp") ?? "", u.searchParams.get("sig") ?? "")
  );
};

describe("files on pushed payloads", () => {
  it("B-181 B-182 B-185 B-168 a webhook body and a /ws event carry signed metadata.attachments, no file name; the webhook counts the agent's files", async () => {
    const ws = new WebSocket(`${api.url.replace("http", "ws")}/api/agent-api/ws`, {
      headers: { authorization: `Bearer ${T["agt-a"]}` },
    });
    const frames: { t: string; message?: { id: string; metadata: Record<string, unknown> | null } }[] = [];
    let wake: () => void = () => {};
    ws.on("message", (data) => {
      frames.push(JSON.parse(String(data)));
      wake();
    });
    await new Promise<void>((resolve) => ws.on("open", () => resolve()));
    ws.send(JSON.stringify({ t: "hello" }));
    const next = async (match: (f: (typeof frames)[number]) => boolean) => {
      for (let i = 0; i < 200; i++) {
        const found = frames.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      throw new Error("no such frame");
    };
    await next((f) => f.t === "cursor");

    const id = await uploaded(hub, "hum-maintainer", { name: "quarterly-secret.pdf" });
    const posted = await rest("POST", `${P}/conversations/${cnv}/messages`, {
      token: T["hum-maintainer"],
      body: { body: "the numbers", attachments: [id] },
    });
    expect(posted.status).toBe(201);

    const event = await next((f) => f.t === "event" && f.message?.id === posted.body.id);
    const pushed = event.message?.metadata as Record<string, unknown>;
    expect(pushed.attachments).toEqual([
      {
        attachmentId: id,
        type: "file",
        mimeType: "application/pdf",
        sizeBytes: expect.any(Number),
        attachmentUrl: expect.any(String),
      },
    ]);
    expect(verifies(pushed.attachmentUrl, id)).toBe(true);
    expect(pushed.attachmentId).toBe(id);
    ws.close();

    for (let i = 0; i < 200 && !bodies.some((b) => b.message.id === posted.body.id); i++) {
      await hub.webhooks.idle();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const body = bodies.find((b) => b.message.id === posted.body.id);
    const hooked = body?.message.metadata as Record<string, unknown>;
    expect(verifies((hooked.attachments as { attachmentUrl: string }[])[0]?.attachmentUrl, id)).toBe(true);
    expect(verifies(hooked.attachmentUrl, id)).toBe(true);
    expect(JSON.stringify(body)).not.toContain("quarterly-secret");

    // B-168: project.notes.fileCount is how many files this agent's list_files here would list.
    const hookedBody = body as unknown as { conversationId: string; project: { notes: { fileCount: number } } };
    const listing = await handleRest(
      hub,
      new Request(`${BASE}/api/agent-api/conversations/${hookedBody.conversationId}/attachments`, {
        headers: { authorization: `Bearer ${T["agt-a"]}` },
      }),
    );
    expect(listing.status).toBe(200);
    const listed = ((await listing.json()) as { files: unknown[] }).files;
    expect(listed.length).toBeGreaterThan(0);
    expect(hookedBody.project.notes.fileCount).toBe(listed.length);
  });
});

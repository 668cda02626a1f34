import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentApiError, connect } from "../src/index.ts";

// The SDK's calls for files, polls and reactions on the wire (004 §10, v1.12): upload as
// multipart/form-data with the part `file` (a path streamed from disk), `original=1` on the query;
// the send's attachments; the file library, polls and reactions on their routes. A real HTTP server
// on 127.0.0.1 reads them.

type Seen = { method: string; url: string; headers: Record<string, unknown>; body: Buffer };

async function withServer(
  answer: (seen: Seen) => { status: number; body: unknown },
  run: (url: string, seen: Seen[]) => Promise<void>,
) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
    seen.push(s);
    const a = answer(s);
    res.writeHead(a.status, { "content-type": "application/json" });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const UPLOADED = {
  attachmentId: "att-0123456789",
  size: 5,
  mimeType: "text/plain",
  thumbhash: null,
  fileName: "notes.txt",
};

describe("upload (004 §10 step 1, B-186, B-196)", () => {
  it("a path goes up as multipart part `file` with its base name; original=1 on the query; the token sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "maity-up-"));
    const path = join(dir, "notes.txt");
    writeFileSync(path, "hello");
    await withServer(
      () => ({ status: 201, body: UPLOADED }),
      async (baseUrl, seen) => {
        const client = connect({ baseUrl, token: "bay_test" });
        expect(await client.upload(path)).toEqual(UPLOADED);
        await client.upload(new Blob(["%PDF-1.4"], { type: "application/pdf" }), { fileName: "a.pdf", original: true });
        const [first, second] = seen;
        expect(first?.method).toBe("POST");
        expect(first?.url).toBe("/api/agent-api/attachments");
        expect(first?.headers.authorization).toBe("Bearer bay_test");
        expect(String(first?.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
        const body = first?.body.toString("utf8") ?? "";
        expect(body).toContain('Content-Disposition: form-data; name="file"; filename="notes.txt"');
        expect(body).toContain("\r\n\r\nhello\r\n");
        expect(second?.url).toBe("/api/agent-api/attachments?original=1");
        expect(second?.body.toString("utf8")).toContain('name="file"; filename="a.pdf"');
      },
    );
  });

  it("a refusal is an AgentApiError with the protocol's code (413 FILE_TOO_LARGE)", async () => {
    await withServer(
      () => ({ status: 413, body: { error: "the file is over 25 MB", code: "FILE_TOO_LARGE" } }),
      async (baseUrl) => {
        const client = connect({ baseUrl, token: "bay_test" });
        const refused = await client.upload(new Blob(["x"]), { fileName: "x.txt" }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(AgentApiError);
        expect(refused).toMatchObject({ status: 413, code: "FILE_TOO_LARGE" });
      },
    );
  });
});

describe("the other calls' routes (B-198, B-203, B-204, B-226, B-228)", () => {
  it("send with attachments, files, fileLink, polls and reactions", async () => {
    await withServer(
      () => ({ status: 200, body: {} }),
      async (baseUrl, seen) => {
        const client = connect({ baseUrl, token: "bay_test" });
        await client.send("c1", {
          content: "two",
          attachments: [{ attachmentId: "att-b" }, { attachmentId: "att-a" }],
        });
        await client.files("c1");
        await client.fileLink("c1", "att-a");
        await client.pollCreate({ conversationId: "c1", question: "Q?", options: ["a", "b"], allowMultiple: true });
        await client.pollVote("pol-1", [0, 2]);
        await client.pollGet("pol-1");
        await client.react("c1", "m1", "👍");
        await client.unreact("c1", "m1", "👍");
        expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
          "POST /api/agent-api/conversations/c1/messages",
          "GET /api/agent-api/conversations/c1/attachments",
          "GET /api/agent-api/conversations/c1/attachments/att-a/link",
          "POST /api/agent-api/polls",
          "POST /api/agent-api/polls/pol-1/vote",
          "GET /api/agent-api/polls/pol-1",
          "POST /api/agent-api/conversations/c1/messages/m1/reactions",
          `DELETE /api/agent-api/conversations/c1/messages/m1/reactions?emoji=${encodeURIComponent("👍")}`,
        ]);
        expect(JSON.parse(seen[0]?.body.toString() ?? "{}")).toEqual({
          content: "two",
          attachments: [{ attachmentId: "att-b" }, { attachmentId: "att-a" }],
        });
        expect(JSON.parse(seen[4]?.body.toString() ?? "{}")).toEqual({ optionIndexes: [0, 2] });
        expect(JSON.parse(seen[6]?.body.toString() ?? "{}")).toEqual({ emoji: "👍" });
      },
    );
  });
});

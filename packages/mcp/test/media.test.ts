import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentApiError } from "@maity/client";
import type { AgentMessage } from "@maity/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkUploadExtension, dispositionName, downloadAttachment, safeFileName } from "@maity/client/download";
import { attachmentLines, filesText, messageLine, sizeText } from "../src/render.ts";
import { fakeClient, inMemory } from "./fake.ts";

// Files, cards and polls over MCP (004 §10 "Attachments through the MCP tools", v1.11, v1.12): the rendering of
// attachments, cards and polls, the send's files and cards, and the local disk's guards — the
// download against a real HTTP server on 127.0.0.1 started here.

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[] | undefined)?.[0]?.text ?? "";
const message = (over: Partial<AgentMessage> = {}): AgentMessage => ({
  id: "m1",
  conversationId: "c1",
  senderId: "h1",
  senderType: "USER",
  content: "here are the two files",
  createdAt: "2026-10-11T10:01:00.000Z",
  metadata: null,
  sender: { id: "h1", name: "Karmen", kind: "user", role: "admin", visiting: null },
  mentions: [],
  shouldRespond: false,
  replyTo: null,
  cardPayload: null,
  reactions: [],
  deletedAt: null,
  ...over,
});
const file = (n: number, type: "image" | "file", mimeType: string, sizeBytes: number) => ({
  attachmentId: `att-${n}`,
  type,
  mimeType,
  sizeBytes,
  attachmentUrl: `https://hub.example/api/files/att-${n}?exp=1&sig=s${n}`,
});

describe("B-216 attachments, cards and polls under their message", () => {
  it("B-216 each file on its own line, i/n only when the message has more than one", () => {
    const two = message({
      metadata: {
        attachments: [file(1, "image", "image/png", 12 * 1024), file(2, "file", "application/pdf", 1 << 20)],
      },
    });
    expect(messageLine(two, "a1").split("\n").slice(2)).toEqual([
      "    ↳ attachment 1/2 (image, image/png, 12 KB): https://hub.example/api/files/att-1?exp=1&sig=s1 — expires ~1h",
      "    ↳ attachment 2/2 (file, application/pdf, 1 MB): https://hub.example/api/files/att-2?exp=1&sig=s2 — expires ~1h",
    ]);
    const one = message({ metadata: { attachments: [file(3, "file", "text/csv", 300)] } });
    expect(attachmentLines(one)).toEqual([
      "    ↳ attachment (file, text/csv, 300 B): https://hub.example/api/files/att-3?exp=1&sig=s3 — expires ~1h",
    ]);
    // A redacted message shows no files (its bytes are deleted, Maity M-039).
    expect(messageLine({ ...two, deletedAt: "2026-10-11T10:02:00.000Z" }, "a1")).not.toContain("↳ attachment");
    expect(sizeText(1536 * 1024)).toBe("1.5 MB");
  });

  it("v1.12 a poll's answers are numbered from 1 with their votes; the tool's indexes from 0 are said", () => {
    const poll = message({
      metadata: { type: "card.poll" },
      content: "Poll: Ship friday?",
      cardPayload: {
        pollId: "pol-1",
        question: "Ship friday?",
        options: ["Yes", "No"],
        askedBy: "h1",
        allowMultiple: false,
      },
      poll: {
        id: "pol-1",
        allowMultiple: false,
        closed: false,
        options: [{ index: 1, count: 2, voters: [] }],
        voterCount: 2,
        mine: [1],
        canVote: true,
      },
    });
    const lines = messageLine(poll, "a1").split("\n").slice(2);
    expect(lines).toEqual([
      '    ↳ poll pol-1 (single choice, 2 voters): "Ship friday?"',
      "      1. Yes — 0 votes",
      "      2. No — 2 votes (your vote)",
      "      (vote_in_poll counts answers from 0: answer 1 is index 0)",
    ]);
  });

  it("v1.11 a calendar card's fields follow its fallback text; reactions in one line", () => {
    const card = message({
      metadata: { type: "card.calendar" },
      content: "Standup, Monday 9:00",
      cardPayload: { title: "Standup", start: "2026-10-12T09:00:00Z", location: "Room 2" },
      reactions: [{ emoji: "👍", count: 2, reactors: [] }],
    });
    expect(messageLine(card, "a1").split("\n").slice(2)).toEqual([
      '    ↳ card.calendar: title "Standup", start "2026-10-12T09:00:00Z", location "Room 2"',
      "    ↳ reactions: 👍 2",
    ]);
  });
});

describe("B-209 the rendered project listing", () => {
  it('ends a line with · project library or · in "<chat>"; this chat\'s files read as before', () => {
    const file = { type: "file" as const, mimeType: "application/pdf", sizeBytes: 2048, senderId: "hum-a" };
    const at = "2026-12-05T10:00:00.000Z";
    const lines = filesText({
      conversationId: "cnv-here",
      scope: "project",
      total: 3,
      totalBytes: 6144,
      files: [
        {
          ...file,
          attachmentId: "att-1",
          fileName: "here.pdf",
          messageId: "evt-1",
          createdAt: at,
          source: { kind: "chat", conversationId: "cnv-here", title: "Here" },
        },
        {
          ...file,
          attachmentId: "att-2",
          fileName: "lib.pdf",
          messageId: null,
          createdAt: at,
          source: { kind: "project" },
        },
        {
          ...file,
          attachmentId: "att-3",
          fileName: "there.pdf",
          messageId: "evt-9",
          createdAt: at,
          source: { kind: "chat", conversationId: "cnv-there", title: "Planning" },
        },
      ],
    }).split("\n");
    expect(lines[1]).toBe(`- "here.pdf" (file, application/pdf, 2 KB) attachmentId att-1 in message evt-1, ${at}`);
    expect(lines[2]).toBe(`- "lib.pdf" (file, application/pdf, 2 KB) attachmentId att-2, ${at} · project library`);
    expect(lines[3]).toBe(
      `- "there.pdf" (file, application/pdf, 2 KB) attachmentId att-3 in message evt-9, ${at} · in "Planning"`,
    );
  });
});

describe("send_message with files and cards (B-211, B-213, B-224)", () => {
  it("B-211 attachmentIds go out as attachments in render order", async () => {
    const sent: unknown[] = [];
    const { mcp, close } = await inMemory(
      fakeClient({
        send: async (conversationId: string, input: unknown) => {
          sent.push({ conversationId, input });
          return message({ id: "m9" });
        },
      }),
    );
    const result = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "two files", attachmentIds: ["att-b", "att-a"] },
    });
    expect(result.isError).toBeFalsy();
    expect(sent).toEqual([
      {
        conversationId: "c1",
        input: { content: "two files", attachments: [{ attachmentId: "att-b" }, { attachmentId: "att-a" }] },
      },
    ]);
    const eleven = Array.from({ length: 11 }, (_, i) => `att-${i}`);
    const refused = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "too many", attachmentIds: eleven },
    });
    expect(refused.isError).toBe(true);
    expect(sent).toHaveLength(1);
    await close();
  });

  it("B-224 the tool schema itself refuses a card type other than card.calendar and card.email", async () => {
    const sent: unknown[] = [];
    const { mcp, close } = await inMemory(
      fakeClient({
        send: async (_: string, input: unknown) => {
          sent.push(input);
          return message({ id: "m9" });
        },
      }),
    );
    const { tools } = await mcp.listTools();
    const properties = tools.find((t) => t.name === "send_message")?.inputSchema.properties ?? {};
    const card = (properties as Record<string, unknown>).card;
    expect(JSON.stringify(card)).toContain("card.calendar");
    expect(JSON.stringify(card)).not.toContain("card.decision");
    for (const type of ["card.decision", "card.poll"]) {
      const refused = await mcp.callTool({
        name: "send_message",
        arguments: { conversationId: "c1", content: "x", card: { type, payload: { title: "x" } } },
      });
      expect(refused.isError, type).toBe(true);
    }
    const calendar = { type: "card.calendar", payload: { title: "Standup", start: "2026-10-12T09:00:00Z" } };
    const ok = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "Standup Monday", card: calendar },
    });
    expect(ok.isError).toBeFalsy();
    expect(sent).toEqual([{ content: "Standup Monday", card: calendar }]);
    await close();
  });

  it("B-213 B-214 local files and ids over 10, or a file type not allowed: refused before any upload", async () => {
    const uploads: string[] = [];
    const sends: unknown[] = [];
    const client = fakeClient({
      upload: async (path: string) => {
        uploads.push(path);
        return {
          attachmentId: `att-up${uploads.length}`,
          size: 1,
          mimeType: "text/plain",
          thumbhash: null,
          fileName: "a.txt",
        };
      },
      send: async (_: string, input: unknown) => {
        sends.push(input);
        return message({ id: "m9" });
      },
    });
    const { mcp, close } = await inMemory(client, {});
    const ids = Array.from({ length: 8 }, (_, i) => `att-${i}`);
    const over = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "x", attachmentIds: ids, files: ["/a.txt", "/b.txt", "/c.txt"] },
    });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/Nothing was uploaded or sent: 11 files, at most 10/);
    const exe = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "x", files: ["/a.txt", "/tool.exe"] },
    });
    expect(exe.isError).toBe(true);
    expect(textOf(exe)).toMatch(/tool\.exe: not an uploadable file type/);
    expect(uploads).toEqual([]);
    expect(sends).toEqual([]);
    // A missing file: refused before the first upload too.
    const dir = mkdtempSync(join(tmpdir(), "maity-send-"));
    const [a, b] = [join(dir, "a.txt"), join(dir, "b.csv")];
    writeFileSync(a, "a");
    writeFileSync(b, "b,c");
    const missing = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "x", files: [a, join(dir, "gone.pdf")] },
    });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/gone\.pdf: no such file; nothing was uploaded or sent/);
    expect(uploads).toEqual([]);
    // Within the limit: the ids first, then the uploaded files, in order.
    const sent = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "x", attachmentIds: ["att-0"], files: [a, b] },
    });
    expect(sent.isError).toBeFalsy();
    expect(uploads).toEqual([a, b]);
    expect(sends).toEqual([
      {
        content: "x",
        attachments: [{ attachmentId: "att-0" }, { attachmentId: "att-up1" }, { attachmentId: "att-up2" }],
      },
    ]);
    const upload = await mcp.callTool({ name: "upload_file", arguments: { path: "/notes.PDF.sh" } });
    expect(upload.isError).toBe(true);
    expect(uploads).toHaveLength(2);
    await close();
  });

  it("a refused link says nothing was sent and to upload again (ATTACHMENT_LINK_FAILED)", async () => {
    const refused = async () => {
      throw new AgentApiError(409, "ATTACHMENT_LINK_FAILED", "the files could not be attached");
    };
    const { mcp, close } = await inMemory(fakeClient({ send: refused }));
    const result = await mcp.callTool({
      name: "send_message",
      arguments: { conversationId: "c1", content: "x", attachmentIds: ["att-1"] },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ATTACHMENT_LINK_FAILED.*Nothing was sent.*upload the files again/s);
    await close();
  });
});

describe("B-214 B-215 the local disk's guards", () => {
  it("B-214 the allowed extensions, any case", () => {
    for (const ok of ["a.jpg", "b.JPEG", "/x/c.pdf", "d.docx", "e.csv", "f.zip"])
      expect(() => checkUploadExtension(ok)).not.toThrow();
    for (const no of ["a.exe", "b.xls", "c.odt", "noext", "/dir.png/file", "a.svg"])
      expect(() => checkUploadExtension(no), no).toThrow(/not an uploadable file type/);
  });

  it("B-215 the saved name comes from Content-Disposition, without separators or leading dots", () => {
    expect(dispositionName(`attachment; filename="a.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`)).toBe("résumé.pdf");
    expect(dispositionName('inline; filename="chart.png"')).toBe("chart.png");
    expect(dispositionName(null)).toBeNull();
    expect(safeFileName("../../etc/passwd")).toBe("_.._etc_passwd");
    expect(safeFileName(".bashrc")).toBe("bashrc");
    expect(safeFileName("a\\b\u0000c.txt")).toBe("a_bc.txt");
    expect(safeFileName("...")).toBe("download");
    expect(safeFileName(null)).toBe("download");
  });

  let hub: Server;
  let elsewhere: Server;
  let hubUrl = "";
  let elsewhereUrl = "";
  let elsewhereHits = 0;
  const big = Buffer.alloc(3000, 7);
  const listen = (server: Server) =>
    new Promise<string>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    );
  beforeAll(async () => {
    hub = createServer((req, res) => {
      if (req.url?.startsWith("/api/files/report")) {
        res.writeHead(200, {
          "content-type": "application/pdf",
          "content-disposition": `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
        });
        res.end("%PDF-1.4 report");
      } else if (req.url?.startsWith("/api/files/evil")) {
        res.writeHead(200, { "content-disposition": 'attachment; filename="../../.ssh/authorized_keys"' });
        res.end("x");
      } else if (req.url?.startsWith("/api/files/big-declared")) {
        res.writeHead(200, {
          "content-length": String(big.length),
          "content-disposition": 'attachment; filename="big.bin"',
        });
        res.end(big);
      } else if (req.url?.startsWith("/api/files/big-chunked")) {
        res.writeHead(200, { "content-disposition": 'attachment; filename="big.bin"' });
        res.write(big.subarray(0, 1500));
        res.end(big.subarray(1500));
      } else if (req.url?.startsWith("/api/files/moved")) {
        res.writeHead(302, { location: `${elsewhereUrl}/x` });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    elsewhere = createServer((_, res) => {
      elsewhereHits++;
      res.end("should never be fetched");
    });
    hubUrl = await listen(hub);
    elsewhereUrl = await listen(elsewhere);
  });
  afterAll(async () => {
    await new Promise((r) => hub.close(r));
    await new Promise((r) => elsewhere.close(r));
  });

  it("B-215 a URL off the hub's origin is refused as an attack, and never fetched; a redirect is not followed", async () => {
    const saveDir = mkdtempSync(join(tmpdir(), "maity-dl-"));
    await expect(downloadAttachment(`${elsewhereUrl}/api/files/report`, { hubUrl, saveDir })).rejects.toThrow(
      /not your Maity hub.*an attack, not a request/s,
    );
    // Same host, another port: another origin.
    await expect(
      downloadAttachment(`${elsewhereUrl.replace("127.0.0.1", "localhost")}/x`, { hubUrl, saveDir }),
    ).rejects.toThrow(/not your Maity hub/);
    await expect(downloadAttachment(`${hubUrl}/api/files/moved`, { hubUrl, saveDir })).rejects.toThrow(/redirect/);
    expect(elsewhereHits).toBe(0);
    expect(readdirSync(saveDir)).toEqual([]);
  });

  it("B-215 an existing name gets a numeric suffix, never overwritten; a hostile name stays in the folder", async () => {
    const saveDir = mkdtempSync(join(tmpdir(), "maity-dl-"));
    writeFileSync(join(saveDir, "report.pdf"), "mine");
    const first = await downloadAttachment(`${hubUrl}/api/files/report?exp=1&sig=x`, { hubUrl, saveDir });
    const second = await downloadAttachment(`${hubUrl}/api/files/report?exp=1&sig=x`, { hubUrl, saveDir });
    expect(first.path).toBe(join(saveDir, "report (1).pdf"));
    expect(second.path).toBe(join(saveDir, "report (2).pdf"));
    expect(readFileSync(join(saveDir, "report.pdf"), "utf8")).toBe("mine");
    expect(readFileSync(first.path, "utf8")).toBe("%PDF-1.4 report");
    expect(first).toMatchObject({ fileName: "report.pdf", sizeBytes: 15, mimeType: "application/pdf" });
    const evil = await downloadAttachment(`${hubUrl}/api/files/evil`, { hubUrl, saveDir });
    expect(evil.path).toBe(join(saveDir, "_.._.ssh_authorized_keys"));
  });

  it("B-215 over the cap — declared or while streaming — nothing is kept", async () => {
    const saveDir = mkdtempSync(join(tmpdir(), "maity-dl-"));
    await expect(
      downloadAttachment(`${hubUrl}/api/files/big-declared`, { hubUrl, saveDir, maxBytes: 2000 }),
    ).rejects.toThrow(/over the 2000-byte download cap/);
    await expect(
      downloadAttachment(`${hubUrl}/api/files/big-chunked`, { hubUrl, saveDir, maxBytes: 2000 }),
    ).rejects.toThrow(/over the 2000-byte download cap/);
    expect(readdirSync(saveDir)).toEqual([]);
    const fits = await downloadAttachment(`${hubUrl}/api/files/big-chunked`, { hubUrl, saveDir, maxBytes: 3000 });
    expect(fits.sizeBytes).toBe(3000);
    expect(existsSync(fits.path)).toBe(true);
  });

  it("B-215 download_attachment over MCP: saveDir honoured, an off-hub URL an isError result", async () => {
    const saveDir = mkdtempSync(join(tmpdir(), "maity-dl-"));
    const client = fakeClient({ options: { baseUrl: hubUrl, token: "bay_x" } } as never);
    const { mcp, close } = await inMemory(client, { downloadDir: join(saveDir, "unused") });
    const saved = await mcp.callTool({
      name: "download_attachment",
      arguments: { url: `${hubUrl}/api/files/report`, saveDir },
    });
    expect(saved.isError).toBeFalsy();
    expect(textOf(saved)).toContain(`to ${join(saveDir, "report.pdf")}`);
    const refused = await mcp.callTool({ name: "download_attachment", arguments: { url: `${elsewhereUrl}/f` } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/attack, not a request/);
    expect(elsewhereHits).toBe(0);
    await close();
  });
});

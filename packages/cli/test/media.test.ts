import { describe, expect, it } from "vitest";
import { parseCommand, UsageError } from "../src/commands.ts";
import { renderLine, renderTally, type ShownMessage, sizeText } from "../src/render.ts";

// Attachments and polls on the command line (004 §10 "Attachments through the MCP tools": the CLI
// refuses before uploading anything, B-213; the attachment lines of B-216; polls numbered from 1 as
// they are shown).
process.env.TZ = "UTC";

const parse = (...argv: string[]) => parseCommand(argv).command;

describe("maity send --file, files, download, poll, vote, react: parseCommand", () => {
  it("B-213 --file repeats, up to 10; an 11th is refused before anything is uploaded", () => {
    expect(parse("send", "c1", "two files", "--file", "a.png", "--file", "b.pdf")).toEqual({
      kind: "send",
      conversationId: "c1",
      content: "two files",
      files: ["a.png", "b.pdf"],
    });
    const ten = Array.from({ length: 10 }, (_, i) => ["--file", `f${i}.txt`]).flat();
    expect(parse("send", "c1", "x", ...ten)).toMatchObject({ files: expect.any(Array) });
    expect(() => parse("send", "c1", "x", ...ten, "--file", "one-more.txt")).toThrow(
      new UsageError("at most 10 --file on one message, got 11"),
    );
  });

  it("files, download [--dir], poll [--multiple], vote (answers from 1; none withdraws), react [--remove]", () => {
    expect(parse("files", "c1")).toEqual({ kind: "files", conversationId: "c1" });
    expect(parse("download", "http://127.0.0.1:3000/api/files/att-1?exp=1&sig=x", "--dir", "/tmp/d")).toEqual({
      kind: "download",
      url: "http://127.0.0.1:3000/api/files/att-1?exp=1&sig=x",
      dir: "/tmp/d",
    });
    expect(parse("poll", "c1", "Ship friday?", "Yes", "No", "--multiple")).toEqual({
      kind: "poll",
      conversationId: "c1",
      question: "Ship friday?",
      options: ["Yes", "No"],
      multiple: true,
    });
    expect(parse("vote", "pol-1", "1", "3")).toEqual({ kind: "vote", pollId: "pol-1", answers: [1, 3] });
    expect(parse("vote", "pol-1")).toEqual({ kind: "vote", pollId: "pol-1", answers: [] });
    expect(() => parse("vote", "pol-1", "0")).toThrow(/from 1/);
    expect(() => parse("vote", "pol-1", "one")).toThrow(/from 1/);
    expect(parse("react", "c1", "m1", "👍", "--remove")).toEqual({
      kind: "react",
      conversationId: "c1",
      messageId: "m1",
      emoji: "👍",
      remove: true,
    });
    expect(() => parse("files", "c1", "--dir", "x")).toThrow(/--dir is not an option of "files"/);
    expect(() => parse("send", "c1", "x", "--multiple")).toThrow(/--multiple is not an option of "send"/);
  });
});

describe("B-216 the attachment lines under a message", () => {
  const message = (metadata: Record<string, unknown> | null): ShownMessage => ({
    id: "m1",
    senderId: "hum-karmen",
    content: "here are the two files",
    createdAt: "2026-10-11T10:01:00.000Z",
    sender: { name: "Karmen", role: "admin" },
    mentions: [],
    shouldRespond: false,
    metadata,
  });
  const file = (n: number, type: string, mimeType: string, sizeBytes: number) => ({
    attachmentId: `att-${n}`,
    type,
    mimeType,
    sizeBytes,
    attachmentUrl: `https://hub.example/api/files/att-${n}?exp=1&sig=s`,
  });

  it("B-216 i/n only when the message carries more than one file", () => {
    const two = message({
      attachments: [file(1, "image", "image/png", 12 * 1024), file(2, "file", "application/pdf", 1024 * 1024)],
    });
    expect(renderLine(two, "agt-me")).toBe(
      [
        "[10:01] Karmen (admin): here are the two files",
        "    ↳ attachment 1/2 (image, image/png, 12 KB): https://hub.example/api/files/att-1?exp=1&sig=s — expires ~1h",
        "    ↳ attachment 2/2 (file, application/pdf, 1 MB): https://hub.example/api/files/att-2?exp=1&sig=s — expires ~1h",
      ].join("\n"),
    );
    expect(renderLine(message({ attachments: [file(1, "file", "text/plain", 10)] }), "agt-me")).toContain(
      "\n    ↳ attachment (file, text/plain, 10 B): ",
    );
    expect(renderLine(message(null), "agt-me")).toBe("[10:01] Karmen (admin): here are the two files");
    expect(sizeText(2_500_000)).toBe("2.4 MB");
  });

  it("a tally counts answers from 1, as the poll shows them", () => {
    const tally = renderTally({
      id: "pol-1",
      allowMultiple: false,
      closed: false,
      options: [{ index: 0, count: 1, voters: [] }],
      voterCount: 1,
      mine: [0],
      canVote: true,
    });
    expect(tally).toBe("poll pol-1: 1 voter(s); answer 1: 1; your vote: 1");
  });
});

import { describe, expect, it } from "vitest";
import { itemAfterMessage, itemAfterRead, type LiveItem, sortLiveItems } from "../src/live.ts";

// The dashboard's list follows the live feed without reading the list again (§9.2, §9.3).

const item = (over: Partial<LiveItem> = {}): LiveItem => ({
  id: "cnv-1",
  last_message_at: "2026-12-04T10:00:00.000Z",
  unread: 0,
  mentions_unread: 0,
  pinned: false,
  last_message: { seq: 5, from: "hum-b", body: "hi", sent_at: "2026-12-04T10:00:00.000Z", redacted: false },
  ...over,
});
const msg = (over: Partial<Parameters<typeof itemAfterMessage>[1]> = {}) => ({
  seq: 9,
  from: "hum-b",
  body: "hello there",
  sent_at: "2026-12-04T11:00:00.000Z",
  redacted: false,
  mentions: [] as { member_id: string }[],
  ...over,
});

describe("itemAfterMessage (§9.2 Read and unread, §9.3)", () => {
  it("DESIGN §4b a quiet line (an agent edited a note) changes nothing: no preview, no activity, no unread", () => {
    const before = item({ unread: 2 });
    const quiet = msg({ from: "system", body: "agent-a edited Pricing tiers" });
    expect(itemAfterMessage(before, { ...quiet, quiet: { type: "note.edited", actor: "agt-a" } }, "hum-me")).toBe(
      before,
    );
    expect(itemAfterMessage(before, quiet, "hum-me")).not.toBe(before);
  });

  it.each([
    ["someone else's message: one more unread", item({ unread: 2 }), msg(), { unread: 3, mentions_unread: 0 }],
    [
      "someone else's mention of the reader: one more of each",
      item(),
      msg({ mentions: [{ member_id: "hum-me" }] }),
      { unread: 1, mentions_unread: 1 },
    ],
    [
      "a mention of someone else: unread only",
      item(),
      msg({ mentions: [{ member_id: "hum-c" }] }),
      { unread: 1, mentions_unread: 0 },
    ],
    [
      "the reader's own message: whoever speaks has read up to there",
      item({ unread: 4, mentions_unread: 1 }),
      msg({ from: "hum-me" }),
      { unread: 0, mentions_unread: 0 },
    ],
    [
      "an observer's counts stay null",
      item({ unread: null, mentions_unread: null }),
      msg(),
      { unread: null, mentions_unread: null },
    ],
  ])("%s", (_, before, message, counts) => {
    const after = itemAfterMessage(before, message, "hum-me");
    expect(after).toMatchObject({
      ...counts,
      last_message_at: message.sent_at,
      last_message: { seq: 9, from: message.from, body: message.body, redacted: false },
    });
  });

  it("an older or repeated message changes nothing", () => {
    const before = item({ unread: 1 });
    expect(itemAfterMessage(before, msg({ seq: 5 }), "hum-me")).toBe(before);
    expect(itemAfterMessage(before, msg({ seq: 3 }), "hum-me")).toBe(before);
  });

  it("the preview is cut as the list cuts it; a redacted message shows no body", () => {
    const long = "x".repeat(500);
    const after = itemAfterMessage(item(), msg({ body: long }), "hum-me");
    expect((after.last_message?.body ?? "").length).toBeLessThan(long.length);
    expect(itemAfterMessage(item(), msg({ body: null, redacted: true }), "hum-me").last_message).toMatchObject({
      body: null,
      redacted: true,
    });
  });

  it("a read clears the reader's counts; an observer has none", () => {
    expect(itemAfterRead(item({ unread: 3, mentions_unread: 2 }))).toMatchObject({ unread: 0, mentions_unread: 0 });
    const observed = item({ unread: null, mentions_unread: null });
    expect(itemAfterRead(observed)).toBe(observed);
  });

  it("sortLiveItems keeps the four bands, then the newest activity first", () => {
    const items = [
      item({ id: "quiet", last_message_at: "2026-12-04T09:00:00.000Z" }),
      item({ id: "pinned-quiet", pinned: true, last_message_at: "2026-12-04T08:00:00.000Z" }),
      item({ id: "new", unread: 1, last_message_at: "2026-12-04T07:00:00.000Z" }),
      item({ id: "pinned-new", pinned: true, unread: 2, last_message_at: "2026-12-04T06:00:00.000Z" }),
      item({ id: "newer-quiet", last_message_at: "2026-12-04T10:00:00.000Z" }),
    ];
    expect(sortLiveItems(items, () => "o/s").map((i) => i.id)).toEqual([
      "pinned-new",
      "new",
      "pinned-quiet",
      "newer-quiet",
      "quiet",
    ]);
  });
});

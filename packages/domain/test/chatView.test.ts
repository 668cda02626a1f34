import { describe, expect, it } from "vitest";
import {
  firstUnread,
  groupMessages,
  initials,
  insertMention,
  listInWords,
  mentionQuery,
  messageLink,
  type Named,
  observersLine,
  relativeTime,
  replyExcerpt,
  routingChips,
  seqOfHash,
  shouldSendTyping,
  slideWindow,
  suggestMentions,
} from "../src/chatView.ts";

// Issue 15: the dashboard's words for a chat, table-tested.

const people = new Map<string, Named>([
  ["hum-maintainer", { member_id: "hum-maintainer", kind: "human", name: "Maintainer", owner_id: null }],
  ["hum-guest", { member_id: "hum-guest", kind: "human", name: "Guest", owner_id: null }],
  ["agt-a", { member_id: "agt-a", kind: "agent", name: "maintainer/agent-a", owner_id: "hum-maintainer" }],
  ["agt-x", { member_id: "agt-x", kind: "agent", name: "guest/agent-x", owner_id: "hum-guest" }],
]);

describe("initials", () => {
  it.each([
    ["Maintainer", "MA"],
    ["Ada Lovelace", "AL"],
    ["maintainer/agent-a", "AA"],
    ["guest/docs-writer", "DW"],
    ["Ødegaard", "ØD"],
    ["", "?"],
  ])("%s → %s", (name, expected) => expect(initials(name)).toBe(expected));
});

describe("relativeTime (local clock)", () => {
  const now = new Date(2026, 11, 5, 14, 30); // Sat 5 Dec 2026 14:30
  const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();
  it.each([
    [new Date(2026, 11, 5, 14, 29, 30).toISOString(), "now"],
    [at(2026, 11, 5, 14, 25), "5 min"],
    [at(2026, 11, 5, 11, 0), "3 h"],
    [at(2026, 11, 4, 23, 59), "Yesterday"],
    [at(2026, 11, 1, 9, 0), "Tue"],
    [at(2026, 10, 12, 9, 0), "12 Nov"],
    [at(2025, 10, 12, 9, 0), "12 Nov 2025"],
  ])("%s → %s", (iso, expected) => expect(relativeTime(iso, now)).toBe(expected));
});

describe("groupMessages", () => {
  const m = (seq: number, from: string, h: number, min: number, day = 5) => ({
    seq,
    from,
    sent_at: new Date(2026, 11, day, h, min).toISOString(),
  });
  it("runs of one author within 5 minutes, split by another author, a longer gap or a new day", () => {
    const days = groupMessages([
      m(1, "a", 9, 0),
      m(2, "a", 9, 4),
      m(3, "a", 9, 10),
      m(4, "b", 9, 11),
      m(5, "a", 9, 12),
      m(6, "a", 9, 13, 6),
    ]);
    expect(days.map((d) => [d.day, d.runs.map((r) => [r.from, r.messages.map((x) => x.seq)])])).toEqual([
      [
        "2026-12-05",
        [
          ["a", [1, 2]],
          ["a", [3]],
          ["b", [4]],
          ["a", [5]],
        ],
      ],
      ["2026-12-06", [["a", [6]]]],
    ]);
    expect(groupMessages([])).toEqual([]);
  });
});

describe("observersLine (§9.2 observers in words)", () => {
  it("names the observer and the agents it owns in the chat", () => {
    const participants = [...people.values()].filter((p) => p.member_id !== "hum-guest");
    expect(observersLine(["hum-guest"], participants, people)).toBe("Guest reads along as the owner of guest/agent-x");
    expect(observersLine([], participants, people)).toBeNull();
    expect(observersLine(["hum-unknown"], participants, people)).toBe("hum-unknown reads along");
    expect(listInWords(["a", "b", "c"])).toBe("a, b and c");
  });
});

describe("routingChips", () => {
  it("B-060 B-068 names the agents asked and why; the ones the round cap held back", () => {
    expect(
      routingChips(
        [
          { agent_id: "agt-a", should_respond: true, reason: "mentioned" },
          { agent_id: "agt-x", should_respond: false, reason: "not_addressed" },
        ],
        people,
      ),
    ).toEqual({ asked: [{ agentId: "agt-a", name: "maintainer/agent-a", why: "mentioned" }], heldByCap: [] });
    expect(routingChips([{ agent_id: "agt-x", should_respond: false, reason: "round_cap" }], people)).toEqual({
      asked: [],
      heldByCap: ["guest/agent-x"],
    });
  });
});

describe("the composer's @ autocompletion (§9.2 mentions)", () => {
  const candidates = [
    { member_id: "hum-maintainer", handle: "maintainer", name: "Maintainer", kind: "human" as const },
    { member_id: "hum-guest", handle: "guest", name: "Guest", kind: "human" as const },
    { member_id: "agt-a", handle: "agent-a", name: "maintainer/agent-a", kind: "agent" as const },
    { member_id: "agt-x", handle: "agent-x", name: "guest/agent-x", kind: "agent" as const },
  ];
  it.each([
    ["hello @ag", 9, { start: 6, query: "ag" }],
    ["@", 1, { start: 0, query: "" }],
    ["mail me at a@b", 14, null],
    ["@agent-a done", 13, null],
    ["no mention", 10, null],
  ])("mentionQuery(%j, %i)", (text, caret, expected) => expect(mentionQuery(text, caret)).toEqual(expected));

  it("suggests by handle or name, prefix first, agents before people, never the writer", () => {
    expect(suggestMentions("ag", candidates, "hum-maintainer").map((c) => c.handle)).toEqual(["agent-a", "agent-x"]);
    expect(suggestMentions("", candidates, "hum-maintainer").map((c) => c.handle)).toEqual([
      "agent-a",
      "agent-x",
      "guest",
    ]);
    expect(suggestMentions("guest", candidates, "hum-maintainer").map((c) => c.handle)).toEqual(["agent-x", "guest"]);
    expect(suggestMentions("main", candidates, "hum-maintainer").map((c) => c.handle)).toEqual(["agent-a"]);
    expect(insertMention("hello @ag", 9, 6, "agent-a")).toEqual({ text: "hello @agent-a ", caret: 15 });
  });
});

describe("the open chat (issue 15)", () => {
  const items = [
    { seq: 10, from: "hum-me" },
    { seq: 11, from: "hum-sam" },
    { seq: 12, from: "hum-me" },
    { seq: 13, from: "agt-a" },
  ];
  it.each([
    ["after the marker, someone else's first", 10, 11],
    ["the reader's own lines are never new", 11, 13],
    ["nothing after the marker", 13, null],
    ["no marker (an observer)", null, null],
    ["before everything", 0, 11],
  ])("firstUnread: %s", (_what, after, expected) => {
    expect(firstUnread(items, after, "hum-me")).toBe(expected);
  });

  it.each([
    ["short stays", "hello there", "hello there"],
    ["whitespace collapses", "  line one\n\nline   two ", "line one line two"],
    ["a removed message", null, "Message removed"],
    ["cut at a word", "alpha beta gamma delta epsilon zeta eta theta", "alpha beta gamma…"],
    ["a word longer than the cut", "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrst…"],
  ])("replyExcerpt: %s", (_what, body, expected) => {
    expect(replyExcerpt(body, 20)).toBe(expected);
  });

  it.each([
    ["an empty body never", "   ", 10_000, null, false],
    ["the first keystroke", "h", 10_000, null, true],
    ["within the interval", "hi", 11_000, 10_000, false],
    ["after the interval", "hi there", 13_000, 10_000, true],
  ])("shouldSendTyping: %s", (_what, body, now, last, expected) => {
    expect(shouldSendTyping(body, now, last)).toBe(expected);
  });

  it("links to a message and reads the link back", () => {
    const link = messageLink("ann", "bands", "cnv_1", 42);
    expect(link).toBe("/p/ann/bands/c/cnv_1#m-42");
    expect(seqOfHash("#m-42")).toBe(42);
    expect(seqOfHash("#m-x")).toBeNull();
    expect(seqOfHash("")).toBeNull();
  });

  it.each([
    ["up from the end", { start: 250, end: 300 }, "up", { start: 200, end: 300 }],
    ["up lets go of the newest beyond max", { start: 100, end: 300 }, "up", { start: 50, end: 200 }],
    ["up stops at the first", { start: 20, end: 100 }, "up", { start: 0, end: 100 }],
    ["down mounts newer", { start: 0, end: 150 }, "down", { start: 50, end: 200 }],
    ["down stops at the last", { start: 100, end: 280 }, "down", { start: 150, end: 300 }],
  ] as const)("slideWindow: %s", (_what, range, direction, expected) => {
    expect(slideWindow(range, 300, direction, 50, 150)).toEqual(expected);
  });
});

import { describe, expect, it } from "vitest";
import {
  BAND_WORDS,
  groupMessages,
  initials,
  insertMention,
  type ListedChat,
  listInWords,
  listPreview,
  listTitle,
  matchesListQuery,
  mentionQuery,
  type Named,
  observersLine,
  relativeTime,
  routingChips,
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

const maintainer = { member_id: "hum-maintainer", kind: "human" as const, handle: "maintainer" };
const guest = { member_id: "hum-guest", kind: "human" as const, handle: "guest" };
const agentA = { member_id: "agt-a", kind: "agent" as const, handle: "agent-a", name: "maintainer/agent-a" };
const chat = (over: Partial<ListedChat>): ListedChat => ({
  kind: "group",
  title: null,
  participants: [maintainer, guest, agentA],
  last_message: null,
  ...over,
});

describe("listTitle (§9.3: a direct chat shows the agent's name, an untitled group its participants)", () => {
  it.each([
    [chat({ kind: "direct", participants: [maintainer, agentA] }), "maintainer/agent-a"],
    [chat({ kind: "direct", participants: [maintainer] }), "Direct conversation"],
    [chat({ title: "Release 0.2 go/no-go" }), "Release 0.2 go/no-go"],
    [chat({}), "maintainer, guest and maintainer/agent-a"],
    [chat({ participants: [maintainer, guest] }), "maintainer and guest"],
  ])("%# → %s", (item, expected) => expect(listTitle(item)).toBe(expected));
});

describe("listPreview (§9.1/§9.3: the hub's cut body, one line, who wrote it, redactions in words)", () => {
  const last = (from: string, body: string | null, redacted = false) => ({ from, body, redacted });
  it.each([
    [chat({}), { text: "No messages yet", author: null, removed: false, empty: true }],
    [chat({ last_message: last("hum-guest", "hi\n\nthere  you") }), { text: "hi there you", author: "guest" }],
    [chat({ last_message: last("hum-maintainer", "mine") }), { text: "mine", author: "You" }],
    [chat({ last_message: last("agt-a", "ok") }), { text: "ok", author: "maintainer/agent-a" }],
    [chat({ last_message: last("hum-gone", "left since") }), { text: "left since", author: null }],
    [
      chat({ kind: "direct", participants: [maintainer, agentA], last_message: last("agt-a", "done") }),
      { text: "done", author: null },
    ],
    [chat({ last_message: last("hum-guest", null, true) }), { text: "Message removed", removed: true }],
    [chat({ last_message: last("hum-guest", "x".repeat(200)) }), { text: "x".repeat(200) }], // never cut again
  ])("%# → %j", (item, expected) => expect(listPreview(item, "hum-maintainer")).toMatchObject(expected));
});

describe("matchesListQuery (issue 15: search by title and participant)", () => {
  const release = chat({ title: "Release 0.2 go/no-go" });
  it.each([
    ["", true],
    ["release", true],
    ["RELEASE go", true],
    ["guest", true], // a participant's handle
    ["agent-a", true],
    ["maintainer/agent", true], // an agent's name
    ["release nobody", false], // every word must be found
    ["zed", false],
  ])("%j → %s", (query, expected) => expect(matchesListQuery(release, query)).toBe(expected));
  it("folds accents both ways", () => {
    const named = chat({ title: "Café with Ødegaard" });
    expect(matchesListQuery(named, "cafe odegaard")).toBe(true);
    expect(matchesListQuery(chat({ title: "cafe" }), "café")).toBe(true);
  });
  it("names every band", () => expect(Object.keys(BAND_WORDS)).toEqual(["0", "1", "2", "3"]));
});

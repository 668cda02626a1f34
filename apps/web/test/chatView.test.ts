import { describe, expect, it } from "vitest";
import {
  firstUnread,
  messageLink,
  replyExcerpt,
  seqOfHash,
  shouldSendTyping,
  slideWindow,
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
} from "../src/wording/chatView";

// The dashboard's words for a chat, table-tested.

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

describe("M-184 listTitle (§9.3: a direct chat shows the agent's name, an untitled group its participants' handles)", () => {
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

describe("matchesListQuery (search by title and participant)", () => {
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

// Managing and creating (§9.2, 004 §4): the picker refuses what the hub refuses.
describe("the create dialog's picker (§9.2 Who takes part)", async () => {
  const { pickerVerdict, PARTICIPANTS_WORDS } = await import("../src/wording/manage");
  const members = [
    { member_id: "hum-ann", kind: "human" as const, owner_id: null },
    { member_id: "hum-bob", kind: "human" as const, owner_id: null },
    { member_id: "agt-mine", kind: "agent" as const, owner_id: "hum-ann" },
    { member_id: "agt-theirs", kind: "agent" as const, owner_id: "hum-bob" },
    ...Array.from({ length: 12 }, (_, i) => ({ member_id: `hum-p${i}`, kind: "human" as const, owner_id: null })),
  ];
  const p = (n: number) => Array.from({ length: n }, (_, i) => `hum-p${i}`);
  it.each([
    ["nobody else", [], "too_few"],
    ["only the creator", ["hum-ann"], "too_few"],
    ["one human", ["hum-bob"], null],
    ["only your own agent", ["agt-mine"], "use_direct"],
    ["your own agent twice", ["agt-mine", "agt-mine"], "use_direct"],
    ["another owner's agent", ["agt-theirs"], null],
    ["your agent and a human", ["agt-mine", "hum-bob"], null],
    ["11 others", p(11), null],
    ["12 others", p(12), "too_many"],
    ["a non-member", ["hum-nobody"], "not_a_member"],
  ])("%s", (_, picked, reason) => {
    const verdict = pickerVerdict("hum-ann", picked, members);
    if (reason === null) expect(verdict).toEqual({ ok: true });
    else expect(verdict).toMatchObject({ ok: false, reason, words: PARTICIPANTS_WORDS[reason as "too_few"] });
  });
  it("says why in words and names the direct conversation to open", () => {
    expect(pickerVerdict("hum-ann", p(12), members)).toMatchObject({
      words: "A group chat has at most 12 participants, you included.",
    });
    expect(pickerVerdict("hum-ann", ["agt-mine"], members)).toMatchObject({ directWith: "agt-mine" });
  });
});

describe("the reply policy in words (004 §4, B-067)", async () => {
  const { policyChip, needsTokenCostAcceptance, fieldErrorWords, designatedRole } = await import(
    "../src/wording/manage"
  );
  it.each([
    ["MENTIONS", 3, null, "Replies: mentioned agents · up to 3 rounds"],
    ["MENTIONS", 1, null, "Replies: mentioned agents · up to 1 round"],
    ["OPEN", 0, null, "Replies: every agent · no agent-to-agent rounds"],
    ["DEDICATED", 2, "maintainer/agent-a", "Replies: the designated agent (maintainer/agent-a) · up to 2 rounds"],
    ["ROUTER", 2, null, "Replies: the router's pick · up to 2 rounds"],
  ] as const)("policyChip(%s, %i, %s)", (policy, rounds, designated, words) =>
    expect(policyChip(policy, rounds, designated)).toBe(words),
  );
  it.each([
    [5, 2, false],
    [6, 2, true],
    [6, 6, false],
    [20, 6, true],
    [0, 20, false],
  ])("needsTokenCostAcceptance(%i, from %i) = %s", (next, current, needed) =>
    expect(needsTokenCostAcceptance(next, current)).toBe(needed),
  );
  it("names the field and says the code in words", () => {
    expect(fieldErrorWords("max_agent_rounds", "needs_accept_token_cost")).toBe(
      "Round cap: more than 5 rounds only once you accept the token cost.",
    );
    expect(fieldErrorWords("designated_agent_id", "required")).toBe(
      "Designated agent: choose one; this policy needs it.",
    );
    expect(fieldErrorWords("title", "at most 200 characters")).toBe("Title: at most 200 characters.");
    expect(fieldErrorWords("member_id", "too_many")).toBe("Member: a group chat has at most 12 participants.");
  });
  it("says which policies name an agent", () => {
    expect(designatedRole("MENTIONS")).toBeNull();
    expect(designatedRole("DEDICATED")).toEqual({ label: "Designated agent", required: true });
    expect(designatedRole("ROUTER")).toEqual({ label: "Fallback agent", required: false });
  });
});

describe("the open chat: where it opens, replies, typing, links, the mounted slice", () => {
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

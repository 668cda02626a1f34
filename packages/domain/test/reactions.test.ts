import { describe, expect, it } from "vitest";
import { agentReactions, checkEmoji, maityReactions } from "../src/index.ts";

// Reactions: what an emoji is, and a message's reactions on both surfaces.

describe("checkEmoji: one grapheme that is an emoji", () => {
  it.each([
    ["👍", true],
    ["👀", true],
    ["❤️", true],
    ["👍🏽", true], // skin tone: one grapheme
    ["👨‍👩‍👧‍👦", true], // a ZWJ family
    ["🇫🇷", true], // a flag
    ["1️⃣", true], // a keycap
    ["#️⃣", true],
    ["a", false],
    ["1", false],
    ["", false],
    ["👍👍", false], // two graphemes
    ["👍 ", false],
    ["ok", false],
    ["🇫", false], // half a flag is no flag
    [`👍${"\u{1F3FD}".repeat(20)}`, false], // more than 16 code points
  ])("%j → %s", (value, ok) => {
    expect(checkEmoji(value)).toBe(ok ? value : null);
  });
});

describe("a message's reactions", () => {
  const t = (s: number) => new Date(Date.UTC(2026, 11, 5, 10, 0, s));
  const rows = [
    { memberId: "agt-x", emoji: "👀", at: t(3) },
    { memberId: "hum-a", emoji: "👍", at: t(1) },
    { memberId: "hum-b", emoji: "👍", at: t(2) },
  ];
  it("Maity: by emoji first used, members oldest first, mine for the reader", () => {
    expect(maityReactions(rows, "hum-b")).toEqual([
      { emoji: "👍", count: 2, members: ["hum-a", "hum-b"], mine: true },
      { emoji: "👀", count: 1, members: ["agt-x"], mine: false },
    ]);
  });
  it("agent: counts and who, typed USER or AGENT", () => {
    expect(agentReactions(rows)).toEqual([
      {
        emoji: "👍",
        count: 2,
        reactors: [
          { id: "hum-a", type: "USER" },
          { id: "hum-b", type: "USER" },
        ],
      },
      { emoji: "👀", count: 1, reactors: [{ id: "agt-x", type: "AGENT" }] },
    ]);
  });
});

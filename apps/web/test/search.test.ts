import { highlightsOf, parseSearch } from "@maity/domain";
import { describe, expect, it } from "vitest";
import { EXCERPT_MAX, excerpt, groupByChat, markParts, resultHref, sendable } from "../src/search/highlight";

// Message search's pure rules (DESIGN §4d): highlights are code points of the body, a long body
// shows a window around its first match, results are grouped by chat.

const marked = (parts: { text: string; mark: boolean }[]) => parts.filter((p) => p.mark).map((p) => p.text);
const text = (parts: { text: string }[]) => parts.map((p) => p.text).join("");

describe("markParts (DESIGN §4d: highlights in code points)", () => {
  it("marks exactly the word after emoji (an astral code point is one offset, not two)", () => {
    const body = "🎉🎉 party for the axolotl crew";
    // As the hub counts: "🎉🎉 party for the " is 17 code points (and 19 UTF-16 units).
    const start = Array.from(body).indexOf("a", 4 + "party for the ".length - 1);
    expect(start).toBe(17);
    const parts = markParts(body, [{ start, length: 7 }]);
    expect(marked(parts)).toEqual(["axolotl"]);
    expect(text(parts)).toBe(body);
    // Slicing the UTF-16 string instead would have shifted the mark by the emoji's surrogate pairs.
    expect(body.slice(start, start + 7)).not.toBe("axolotl");
  });

  it("agrees with the hub's highlightsOf on bodies with emoji, accents and flags", () => {
    for (const [body, q, want] of [
      ["🇫🇷 café crème at the Élysée", "creme", ["crème"]],
      ["👩‍👩‍👧 family: decided to move 🚚 decision made", "deci", ["decided", "decision"]],
      ["no match here 😀", "zebra", []],
    ] as const) {
      const parsed = parseSearch(q);
      if (!parsed.ok) throw new Error(parsed.error);
      expect(marked(markParts(body, highlightsOf(body, parsed.query)))).toEqual(want);
    }
  });

  it("keeps the text whole; merges touching spans, ignores spans outside the body or empty", () => {
    const parts = markParts("abcdef", [
      { start: 4, length: 1 },
      { start: 0, length: 2 },
      { start: 2, length: 1 },
      { start: 9, length: 3 },
      { start: 5, length: 0 },
    ]);
    expect(parts).toEqual([
      { text: "abc", mark: true },
      { text: "d", mark: false },
      { text: "e", mark: true },
      { text: "f", mark: false },
    ]);
    expect(markParts("", [{ start: 0, length: 3 }])).toEqual([]);
  });
});

describe("excerpt (a long body shows its first match)", () => {
  it("shows a short body whole", () => {
    const r = excerpt("hello zebra", [{ start: 6, length: 5 }]);
    expect(r).toEqual({
      parts: [
        { text: "hello ", mark: false },
        { text: "zebra", mark: true },
      ],
      clippedStart: false,
      clippedEnd: false,
    });
  });

  it("cuts a long body to a window that starts shortly before the first match, at a word", () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(20); // 540 code points
    const body = `${filler}🦓 zebra crossing ${filler}`;
    const start = Array.from(body).indexOf("z");
    const r = excerpt(body, [{ start, length: 5 }]);
    expect(r.clippedStart).toBe(true);
    expect(r.clippedEnd).toBe(true);
    expect(marked(r.parts)).toEqual(["zebra"]);
    const shown = text(r.parts);
    expect(Array.from(shown).length).toBeLessThanOrEqual(EXCERPT_MAX);
    // The match is near the start (on the first line), and the window does not begin mid-word.
    expect(shown.indexOf("zebra")).toBeLessThan(45);
    expect(shown.startsWith("lorem") || shown.startsWith("ipsum") || /^[a-z]+ /.test(shown)).toBe(true);
    expect(body.includes(shown)).toBe(true);
  });

  it("a match near the end of a long body still shows, the window ending with the body", () => {
    const body = `${"word ".repeat(100)}needle`;
    const start = Array.from(body).length - 6;
    const r = excerpt(body, [{ start, length: 6 }]);
    expect(marked(r.parts)).toEqual(["needle"]);
    expect(r.clippedEnd).toBe(false);
    expect(r.clippedStart).toBe(true);
    // Near the start of what shows (not pushed back to fill the window).
    expect(text(r.parts).indexOf("needle")).toBeLessThanOrEqual(40);
  });

  it("without highlights (a filter-only query) shows the start of the body", () => {
    const body = "x".repeat(500);
    const r = excerpt(body, []);
    expect(r.clippedStart).toBe(false);
    expect(r.clippedEnd).toBe(true);
    expect(text(r.parts)).toBe("x".repeat(EXCERPT_MAX));
  });
});

describe("groupByChat", () => {
  const hit = (owner: string, chat: string, seq: number) => ({
    project: { owner, slug: "p", name: "P" },
    conversation_id: chat,
    conversation: { kind: "group" as const, title: chat },
    message: { seq },
  });
  it("groups in the order of each chat's first result, results in order, a repeat shown once", () => {
    const groups = groupByChat([
      hit("a", "x", 9),
      hit("a", "y", 8),
      hit("a", "x", 7),
      hit("b", "x", 6),
      hit("a", "x", 7),
    ]);
    expect(groups.map((g) => [g.key, g.results.map((r) => r.message.seq)])).toEqual([
      ["a/p/x", [9, 7]],
      ["a/p/y", [8]],
      ["b/p/x", [6]],
    ]);
  });
  it("a result opens its chat at the message", () => {
    expect(resultHref(hit("ann", "c_1", 42))).toBe("/p/ann/p/c/c_1#m-42");
  });
});

describe("sendable", () => {
  it("never sends an empty query", () => {
    expect(sendable("")).toBe(false);
    expect(sendable("   ")).toBe(false);
    expect(sendable(" a ")).toBe(true);
  });
});

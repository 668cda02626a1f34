import { describe, expect, it } from "vitest";
import {
  decodeSearchCursor,
  encodeSearchCursor,
  foldText,
  highlightsOf,
  type ParsedSearch,
  parseSearch,
} from "../src/search.ts";

// DESIGN §4d: what a search query means and where its matches sit (code points of the body).

const parsed = (q: string): ParsedSearch => {
  const r = parseSearch(q);
  if (!r.ok) throw new Error(r.error);
  return r.query;
};

describe("parseSearch (DESIGN §4d)", () => {
  it.each([
    ["pricing decision", { words: ["pricing", "decision"], prefix: "decision" }],
    ["  spaced   out  ", { words: ["spaced", "out"], prefix: "out" }],
    ["pricing-model, v2", { words: ["pricing-model", "v2"], prefix: "v2" }],
    [
      "mail ann@example.com (see example.com/docs).",
      { words: ["mail", "ann@example.com", "see", "example.com/docs"], prefix: "example.com/docs" },
    ],
  ])("%s: every word must match, the last also as a prefix", (q, want) => {
    const p = parsed(q);
    expect(p.words.map((w) => w.text)).toEqual(want.words);
    expect(p.words.filter((w) => w.prefix).map((w) => w.text)).toEqual([want.prefix]);
  });

  it("quoted phrases, operators and their values", () => {
    const p = parsed('"ship it" from:@Ann in:"release chat" in:@scout has:FILE after:2026-01-02 before:2026-02-01 go');
    expect(p.phrases).toEqual([["ship", "it"]]);
    expect(p.from).toEqual(["Ann"]);
    expect(p.in).toEqual(["release chat", "@scout"]);
    expect(p.has).toEqual(["file"]);
    expect([p.after, p.before]).toEqual(["2026-01-02", "2026-02-01"]);
    expect(p.words).toEqual([{ text: "go", prefix: true }]);
  });

  it("a one-word quote is that word exactly (no stem, no prefix); an unclosed quote runs to the end", () => {
    expect(parsed('"pricing"').phrases).toEqual([["pricing"]]);
    expect(parsed('"pricing"').words).toEqual([]);
    expect(parsed('"open ended phrase').phrases).toEqual([["open", "ended", "phrase"]]);
  });

  it.each([
    ["会议记录", ["会议记录"]],
    ["🎉", ["🎉"]],
    ["ありがとう ございます", ["ありがとう", "ございます"]],
    ["회의 🚀", ["회의", "🚀"]],
  ])("%s: scripts without spaces and emoji are substrings", (q, substrings) => {
    const p = parsed(q);
    expect(p.substrings).toEqual(substrings);
    expect(p.words).toEqual([]);
  });

  it("an operator-like word that is not an operator is text (to:, http:)", () => {
    expect(parsed("to:bob").words.map((w) => w.text)).toEqual(["to:bob"]);
  });

  it("a last word of one character is no prefix (it would match most of the index)", () => {
    expect(parsed("plan a").words).toEqual([
      { text: "plan", prefix: false },
      { text: "a", prefix: false },
    ]);
  });

  it.each([
    ["x \u0301", { words: ["x"], substrings: ["\u0301"] }],
    ["\u0301\u0302", { words: [], substrings: ["\u0301\u0302"] }],
    ["❤️ love", { words: ["love"], substrings: ["❤️"] }],
    ["⚠️", { words: [], substrings: ["⚠️"] }],
  ])("%j: marks alone and emoji with a variation selector are text, never an empty word", (q, want) => {
    const p = parsed(q);
    expect(p.words.map((w) => w.text)).toEqual(want.words);
    expect(p.substrings).toEqual(want.substrings);
  });

  it.each([
    ["", "required"],
    ["   ", "required"],
    ["has:video", "has: is one of file, poll, card"],
    ["after:2026-02-30", "after: needs a day as YYYY-MM-DD"],
    ["after:0000-01-01", "after: needs a day as YYYY-MM-DD"],
    ["before:yesterday", "before: needs a day as YYYY-MM-DD"],
    ["from:@", "from: needs a handle (from:@ann)"],
    ["in:", "in: needs a chat (in:release or in:@agent)"],
    [Array.from({ length: 17 }, (_, i) => `w${i}`).join(" "), "at most 16 words"],
  ])("%j is refused: %s", (q, error) => {
    expect(parseSearch(q)).toEqual({ ok: false, error });
  });

  it("filters alone are a query", () => {
    expect(parsed("from:@guest has:poll").words).toEqual([]);
  });
});

describe("highlightsOf (DESIGN §4d: offsets in code points)", () => {
  it.each([
    ["🎉 party time", "party", [{ start: 2, length: 5 }]],
    [
      "Café déjà vu",
      "cafe DEJA",
      [
        { start: 0, length: 4 },
        { start: 5, length: 4 },
      ],
    ],
    [
      "Straße und Ørsted",
      "strasse orsted",
      [
        { start: 0, length: 6 },
        { start: 11, length: 6 },
      ],
    ],
    ["我们的会议记录在这里", "会议记录", [{ start: 3, length: 4 }]],
    ["the pricing page", "pric", [{ start: 4, length: 7 }]],
    [
      "ship it; ship it when",
      '"ship it"',
      [
        { start: 0, length: 7 },
        { start: 9, length: 7 },
      ],
    ],
    ["no match here", "absent", []],
    ["write to ann@example.com today", "ann@example.com", [{ start: 9, length: 15 }]],
  ])("%s / %s", (body, q, want) => {
    expect(highlightsOf(body, parsed(q))).toEqual(want);
  });

  it("a stemmed match is marked by its stem, the engine's (deciding → decid)", () => {
    expect(highlightsOf("We decided it", parsed("deciding x"), new Map([["deciding", "decid"]]))).toEqual([
      { start: 3, length: 7 },
    ]);
  });

  it("overlapping marks merge", () => {
    expect(highlightsOf("release", parsed("rel release"))).toEqual([{ start: 0, length: 7 }]);
  });

  it("foldText folds case and accents", () => {
    expect(foldText("ÀÉÎõü Æsir")).toBe("aeiou aesir");
  });
});

describe("search cursors: positions of one order", () => {
  it("round-trip, and a cursor of the other order or a stranger is null", () => {
    const n = encodeSearchCursor({ sort: "newest", seq: 12345 });
    const r = encodeSearchCursor({ sort: "relevance", rank: 607927, seq: 12345 });
    expect(decodeSearchCursor(n, "newest")).toEqual({ sort: "newest", seq: 12345 });
    expect(decodeSearchCursor(r, "relevance")).toEqual({ sort: "relevance", rank: 607927, seq: 12345 });
    expect(decodeSearchCursor(n, "relevance")).toBeNull();
    expect(decodeSearchCursor(r, "newest")).toBeNull();
    expect(decodeSearchCursor("12345", "newest")).toBeNull();
    // Past the seq column: no position of ours (never a database error).
    expect(decodeSearchCursor("nzzzzzz", "newest")).toBeNull();
    expect(decodeSearchCursor("r1.zzzzzzz", "relevance")).toBeNull();
  });
});

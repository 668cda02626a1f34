import { describe, expect, it } from "vitest";
import {
  budgetHistory,
  cutTurn,
  HISTORY_KEEP_NEWEST,
  HISTORY_TOKENS_MAX,
  HISTORY_TURN_TOKENS_MAX,
  HISTORY_TURNS_MAX,
  type HistoryTurn,
  tokensOf,
} from "../src/index.ts";

// Agent protocol v1.15 "History budget" and v1.16 "A trimmed history says so" (B-175 B-176 B-177):
// at most 20 turns and ~3,000 tokens (characters / 4), filled from the newest turn back, the newest 3
// always kept; a turn over ~1,500 tokens cut with "…[truncated, N characters]"; the first entry of a
// trimmed history says how many were left out, and its tokens count inside the budget.

/** A turn whose content is `chars` characters (a repeating alphabet, so a cut shows where it fell). */
const text = (chars: number): string =>
  Array.from({ length: chars }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
const at = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
const turn = (i: number, content: string): HistoryTurn => ({
  id: `evt-${i}`,
  senderId: i % 2 ? "agt-a" : "hum-ann",
  senderName: i % 2 ? "ann/agent-a" : "Ann",
  senderType: i % 2 ? "AGENT" : "USER",
  content,
  createdAt: at(i),
});
/** Turns 0…n-1, oldest first, each `chars` characters (or `chars(i)`). */
const turns = (n: number, chars: number | ((i: number) => number)): HistoryTurn[] =>
  Array.from({ length: n }, (_, i) => turn(i, text(typeof chars === "number" ? chars : chars(i))));
const omitted = (n: number) => ({
  id: "history-omitted",
  senderId: "system",
  senderName: "BayChat",
  senderType: "SYSTEM",
  content: `[${n} earlier messages omitted]`,
});
const ids = (history: HistoryTurn[]): string[] => history.map((t) => t.id);
const tokensIn = (history: HistoryTurn[]): number => history.reduce((sum, t) => sum + tokensOf(t.content), 0);
const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `evt-${from + i}`);

describe("tokensOf: characters / 4, rounded up (B-175)", () => {
  it.each([
    ["empty", "", 0],
    ["one character", "a", 1],
    ["four characters", "abcd", 1],
    ["five characters", "abcde", 2],
    ["eight characters", "abcdefgh", 2],
    ["the per-turn cap exactly", text(6000), 1500],
    ["one character over the per-turn cap", text(6001), 1501],
    ["the whole budget", text(12_000), 3000],
    ["four emoji are four characters, not eight UTF-16 units", "😀😀😀😀", 1],
    ["five emoji", "😀😀😀😀😀", 2],
    ["accented letters", "çàéü", 1],
  ])("%s", (_, input, expected) => {
    expect(tokensOf(input)).toBe(expected);
  });

  it("the limits are the spec's numbers", () => {
    expect([HISTORY_TURNS_MAX, HISTORY_TOKENS_MAX, HISTORY_TURN_TOKENS_MAX, HISTORY_KEEP_NEWEST]).toEqual([
      20, 3000, 1500, 3,
    ]);
  });
});

describe("cutTurn: a turn over ~1,500 tokens is cut with a visible …[truncated, N characters] (B-176)", () => {
  it.each([
    ["a short turn", 10],
    ["5,999 characters", 5999],
    ["exactly 1,500 tokens (6,000 characters)", 6000],
  ])("%s is left whole", (_, chars) => {
    const t = turn(1, text(chars));
    expect(cutTurn(t)).toEqual(t);
  });

  // kept + N = the original length; the marker is inside the 1,500-token cap.
  it.each([
    [6001, 5971, 30],
    [6100, 5971, 129],
    [10_000, 5970, 4030],
    [20_000, 5970, 14_030],
    [100_000, 5969, 94_031],
  ])("%i characters: the first %i kept, then …[truncated, %i characters]", (chars, kept, cut) => {
    const original = turn(3, text(chars));
    const result = cutTurn(original);
    expect(kept + cut).toBe(chars);
    expect(result).toEqual({ ...original, content: `${text(chars).slice(0, kept)}…[truncated, ${cut} characters]` });
    expect(tokensOf(result.content)).toBeLessThanOrEqual(HISTORY_TURN_TOKENS_MAX);
    expect(tokensOf(result.content)).toBeGreaterThan(HISTORY_TURN_TOKENS_MAX - 10);
  });

  it("keeps every other field, extra ones included, and does not change its input", () => {
    const original = {
      ...turn(2, text(7000)),
      replyTo: { id: "evt-1", senderId: "agt-a", senderType: "AGENT", preview: "hi" },
    };
    const copy = structuredClone(original);
    const result = cutTurn(original);
    expect(original).toEqual(copy);
    const { content, ...rest } = result;
    const { content: _, ...originalRest } = original;
    expect(rest).toEqual(originalRest);
    expect(content.endsWith("…[truncated, 1029 characters]")).toBe(true);
  });

  it("counts and cuts characters (code points): an emoji is never split", () => {
    const original = turn(1, "😀".repeat(6001));
    const result = cutTurn(original);
    expect(result.content).toBe(`${"😀".repeat(5971)}…[truncated, 30 characters]`);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(result.content)).toBe(false);
    expect(tokensOf(result.content)).toBeLessThanOrEqual(HISTORY_TURN_TOKENS_MAX);
  });
});

describe("budgetHistory: at most 20 turns, ~3,000 tokens, from the newest back, the newest 3 always kept (B-175 B-177)", () => {
  it.each([
    ["no turns", turns(0, 10), 0, []],
    ["one turn", turns(1, 10), 0, range(0, 1)],
    ["five short turns: all, oldest first", turns(5, 40), 0, range(0, 5)],
    ["20 short turns: all, no notice", turns(20, 40), 0, range(0, 20)],
    // exactly 3,000 tokens in 4 turns of 750: all fit, nothing omitted, no notice to pay for
    ["4 × 750 tokens = 3,000 exactly: all, no notice", turns(4, 3000), 0, range(0, 4)],
    ["12 × 250 tokens = 3,000 exactly: all", turns(12, 1000), 0, range(0, 12)],
  ])("%s", (_, input, earlier, expected) => {
    const history = budgetHistory(input, earlier);
    expect(ids(history)).toEqual(expected);
    expect(history).toEqual(input);
  });

  it.each([
    // [case, turns, earlier, omitted count, ids kept]
    ["25 short turns: the newest 20 and 5 omitted", turns(25, 40), 0, 5, range(5, 25)],
    ["21 short turns: the newest 20 and 1 omitted", turns(21, 40), 0, 1, range(1, 21)],
    ["20 short turns and 7 older ones not passed: 7 omitted", turns(20, 40), 7, 7, range(0, 20)],
    ["3 short turns and 2 older ones not passed: 2 omitted", turns(3, 40), 2, 2, range(0, 3)],
    // 1,000 tokens each: 3 fill the budget; the newest 3 are kept even with the notice over it
    ["5 × 1,000 tokens: the newest 3, 2 omitted", turns(5, 4000), 0, 2, range(2, 5)],
    // 750 tokens each: 4 fill 3,000 exactly, the notice (7 tokens) does not fit: the 4th goes too
    ["6 × 750 tokens: the notice pushes out the 4th newest, 3 omitted", turns(6, 3000), 0, 3, range(3, 6)],
    // 1,001 tokens each: 3,003 > 3,000, but the newest 3 are always kept
    ["3 × 1,001 tokens and 1 older: the newest 3 over the budget", turns(4, 4004), 0, 1, range(1, 4)],
    ["10 × 2,000 tokens (cut to 1,500): the newest 3, 7 omitted", turns(10, 8000), 0, 7, range(7, 10)],
    // 100 tokens each: 29 turns would be 2,900 tokens but only 20 are kept
    ["30 × 100 tokens: 20 turns (2,000 tokens), 10 omitted", turns(30, 400), 0, 10, range(10, 30)],
    // 200 tokens each: 15 fill 3,000, the notice does not fit, 14 are kept
    ["20 × 200 tokens: 14 kept, 6 omitted", turns(20, 800), 0, 6, range(6, 20)],
  ])("%s", (_, input, earlier, count, kept) => {
    const history = budgetHistory(input, earlier);
    expect(ids(history)).toEqual(["history-omitted", ...kept]);
    expect(history[0]).toMatchObject(omitted(count));
    expect(history.slice(1)).toEqual(input.slice(input.length - kept.length).map(cutTurn));
  });

  it("B-177 the notice's tokens are inside the budget: 2,993 tokens of turns fit with it, 2,994 do not", () => {
    // newest back: 3 × 500 tokens, then one of 1,493 (or 1,494) tokens, then an older one that never fits
    const fits = [
      turn(0, text(400)),
      turn(1, text(5972)),
      turn(2, text(2000)),
      turn(3, text(2000)),
      turn(4, text(2000)),
    ];
    const history = budgetHistory(fits);
    expect(ids(history)).toEqual(["history-omitted", "evt-1", "evt-2", "evt-3", "evt-4"]);
    expect(history[0]).toMatchObject(omitted(1));
    expect(tokensIn(history)).toBe(3000);

    const over = [
      turn(0, text(400)),
      turn(1, text(5976)),
      turn(2, text(2000)),
      turn(3, text(2000)),
      turn(4, text(2000)),
    ];
    const trimmed = budgetHistory(over);
    expect(ids(trimmed)).toEqual(["history-omitted", "evt-2", "evt-3", "evt-4"]);
    expect(trimmed[0]).toMatchObject(omitted(2));
    expect(tokensIn(trimmed)).toBe(1507);
  });

  it("B-177 a notice whose count gains a digit costs more: 9 → 10 omitted", () => {
    // 9 old turns of 1 token, then turns summing 2,993 tokens: 7 old ones would fill 3,000, but with
    // the notice all 9 go and "[9 earlier messages omitted]" (7 tokens) fits exactly
    const old = turns(9, 1);
    const newest = [turn(9, text(5972)), turn(10, text(2000)), turn(11, text(2000)), turn(12, text(2000))];
    const history = budgetHistory([...old, ...newest], 0);
    expect(ids(history)).toEqual(["history-omitted", "evt-9", "evt-10", "evt-11", "evt-12"]);
    expect(history[0]).toMatchObject(omitted(9));
    expect(tokensIn(history)).toBe(3000);
    // one more older message (not passed) makes it "[10 earlier messages omitted]", 8 tokens: evt-9 goes too
    const more = budgetHistory([...old, ...newest], 1);
    expect(ids(more)).toEqual(["history-omitted", "evt-10", "evt-11", "evt-12"]);
    expect(more[0]).toMatchObject(omitted(11));
    expect(tokensIn(more)).toBeLessThanOrEqual(HISTORY_TOKENS_MAX);
  });

  it("B-176 turns are cut before they are budgeted: a long newest turn costs 1,500 tokens, not its length", () => {
    const input = [turn(0, text(40)), turn(1, text(6000)), turn(2, text(6000)), turn(3, text(10_000))];
    const history = budgetHistory(input);
    expect(ids(history)).toEqual(["history-omitted", "evt-1", "evt-2", "evt-3"]);
    expect(history[0]).toMatchObject(omitted(1));
    expect(history[3]?.content).toBe(`${text(5970)}…[truncated, 4030 characters]`);
    expect(history.slice(1, 3)).toEqual(input.slice(1, 3));
  });

  it("a cut turn that fits is kept cut, with the older short turns after it", () => {
    const input = [turn(0, text(40)), turn(1, text(9000)), turn(2, text(40)), turn(3, text(40))];
    const history = budgetHistory(input);
    expect(ids(history)).toEqual(["evt-0", "evt-1", "evt-2", "evt-3"]);
    expect(history[1]?.content).toBe(`${text(5971)}…[truncated, 3029 characters]`);
    expect(tokensIn(history)).toBeLessThanOrEqual(HISTORY_TOKENS_MAX);
  });

  it("fills from the newest back and stops at the first turn that does not fit (no older turn skips ahead)", () => {
    // newest back: 1,000 + 1,000 + 900 = 2,900; then 1,000 does not fit; the 10-token one before it is not taken
    const input = [
      turn(0, text(40)),
      turn(1, text(4000)),
      turn(2, text(3600)),
      turn(3, text(4000)),
      turn(4, text(4000)),
    ];
    const history = budgetHistory(input);
    expect(ids(history)).toEqual(["history-omitted", "evt-2", "evt-3", "evt-4"]);
    expect(history[0]).toMatchObject(omitted(2));
  });

  it("the notice carries the spec's fields exactly and a createdAt no later than the first kept turn", () => {
    const history = budgetHistory(turns(25, 40));
    const notice = history[0] as HistoryTurn;
    expect(Object.keys(notice).sort()).toEqual(["content", "createdAt", "id", "senderId", "senderName", "senderType"]);
    expect(notice).toEqual({
      ...omitted(5),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(notice.createdAt)).toBeLessThanOrEqual(Date.parse(history[1]?.createdAt ?? ""));
  });

  it("keeps the extra fields of each turn and does not change its input", () => {
    const input = turns(22, 40).map((t, i) => ({
      ...t,
      replyTo: i ? { id: `evt-${i - 1}`, senderId: "hum-ann", senderType: "USER" as const, preview: "x" } : null,
    }));
    const copy = structuredClone(input);
    const history = budgetHistory(input);
    expect(input).toEqual(copy);
    expect(history.slice(1)).toEqual(input.slice(2));
  });

  // Every generated history against the rule as the spec words it: the longest run of newest turns
  // (at most 20, at least the newest 3) whose tokens, with the notice when anything is left out,
  // stay within 3,000.
  const generated = Array.from({ length: 60 }, (_, n) => {
    let seed = n * 7919 + 17;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const count = Math.floor(next() * 30);
    const sizes = Array.from(
      { length: count },
      () => (next() < 0.15 ? Math.floor(next() * 9000) : Math.floor(next() * 1200)) + 1,
    );
    const earlier = next() < 0.3 ? Math.floor(next() * 40) : 0;
    return [n, sizes, earlier] as const;
  });
  it.each(generated)("generated case %i obeys the rule", (_, sizes, earlier) => {
    const input = sizes.map((s, i) => turn(i, text(s)));
    const history = budgetHistory(input, earlier);
    const cut = input.map(cutTurn);
    const fits = (k: number): boolean => {
      const left = input.length - k + earlier;
      return (
        tokensIn(cut.slice(cut.length - k)) + (left > 0 ? tokensOf(omitted(left).content) : 0) <= HISTORY_TOKENS_MAX
      );
    };
    let expected = Math.min(HISTORY_KEEP_NEWEST, input.length);
    for (let k = Math.min(HISTORY_TURNS_MAX, input.length); k > expected; k--)
      if (fits(k)) {
        expected = k;
        break;
      }
    const left = input.length - expected + earlier;
    const kept = cut.slice(cut.length - expected);
    expect(history).toEqual(left > 0 ? [{ ...omitted(left), createdAt: expect.any(String) }, ...kept] : kept);
    if (expected > HISTORY_KEEP_NEWEST) expect(tokensIn(history)).toBeLessThanOrEqual(HISTORY_TOKENS_MAX);
    expect(history.filter((t) => t.id !== "history-omitted").length).toBeLessThanOrEqual(HISTORY_TURNS_MAX);
  });
});

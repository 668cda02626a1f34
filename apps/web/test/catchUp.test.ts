import type { ConversationSummary, Message } from "@maity/domain";
import { describe, expect, it } from "vitest";
import { generatorWords, newerWords, statusWords, summaryComing } from "../src/chat/catchUp";
import { memoryTitle } from "../src/wording/chatView";

// The Catch up panel's words and the memory ring's tooltip (DESIGN §4b "Summary", "Context rings").

const message = (quiet = false) => ({ seq: 1, ...(quiet ? { quiet: { type: "note.edited", actor: "agt-a" } } : {}) });
const answer = (status: ConversationSummary["status"], messages: number, earlier: number | null = null) =>
  ({
    summary: null,
    status,
    messages: Array.from({ length: messages }, () => message()) as unknown as Message[],
    earlier,
  }) as ConversationSummary;

describe("Catch up's words (DESIGN §4b)", () => {
  it.each([
    ["fresh", 3, null, false],
    ["stale", 25, null, true],
    ["unavailable", 5, null, false],
    ["unavailable", 20, null, true],
    ["unavailable", 200, 17, true],
  ] as const)("%s with %i messages (earlier %s): a summary on its way is %s", (status, n, earlier, coming) => {
    expect(summaryComing(answer(status, n, earlier))).toBe(coming);
  });

  it("unavailable says why: too short a chat (counting no quiet lines), or being made", () => {
    const short = answer("unavailable", 4);
    (short.messages as unknown[]).push(message(true));
    expect(statusWords(short).why).toContain("once a chat has 20 messages (this one has 4)");
    expect(statusWords(answer("unavailable", 22)).why).toContain("being made now");
    expect(statusWords(answer("stale", 22)).chip).toBe("Being updated");
  });

  it("the generator and what follows the boundary, in words", () => {
    expect(generatorWords("extractive")).toBe("the built-in rules (no model)");
    expect(generatorWords("model:llama3.1")).toBe("the model llama3.1");
    expect(newerWords(answer("fresh", 0))).toBe("no newer messages");
    expect(newerWords(answer("fresh", 1))).toBe("1 newer message follows it");
    expect(newerWords(answer("stale", 200, 9))).toBe("more than 200 newer messages follow it");
  });
});

describe("the memory ring's tooltip (B-279, DESIGN §4b)", () => {
  const ring = {
    percent: 88,
    source: "exact" as const,
    runtime: "claude-code",
    reported_at: "2026-12-07T09:00:00.000Z",
    auto_compact_percent: 96,
    tidies: 0,
  };
  it("how full, how measured, by what; how far from compacting by itself; its tidies", () => {
    expect(memoryTitle(ring)).toMatch(
      /^Memory 88% full, counted by claude-code, reported .+; compacts by itself at 96% \(8 points to go\); no tidy this session$/,
    );
    expect(memoryTitle({ ...ring, percent: 97, source: "reported", tidies: 2 })).toMatch(
      /estimated by claude-code.*; past the 96% where it compacts by itself; tidied 2 times this session$/,
    );
    expect(memoryTitle({ ...ring, auto_compact_percent: null, tidies: 1 })).toMatch(/reported [^;]+; tidied 1 time/);
  });
});

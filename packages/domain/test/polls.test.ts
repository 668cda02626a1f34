import { describe, expect, it } from "vitest";
import { checkPoll, checkVote, maityPollOf, pollFallback, sameAnswer, tallyPoll, voteChanges } from "../src/index.ts";

// v1.12 polls: the rules, from the spec's sentences and its tally example.

describe("B-226 B-227 checkPoll: 2–10 answers, none the same word (OQ-B-24)", () => {
  it.each([
    [["Yes", "No"], null],
    [Array.from({ length: 10 }, (_, i) => `Option ${i}`), null],
    [["Yes"], "options"],
    [[], "options"],
    [Array.from({ length: 11 }, (_, i) => `Option ${i}`), "options"],
    [["Yes", " yes"], "options.1"],
    [["Ship", "Wait", "SHIP "], "options.2"],
    [["Yes", "  "], "options.1"],
  ])("%j → %s", (options, field) => {
    const result = checkPoll("Ship on Friday?", options);
    if (field === null) expect(result).toEqual({ question: "Ship on Friday?", options: options.map((o) => o.trim()) });
    else expect(result).toMatchObject({ code: "INVALID_POLL", field });
  });
  it("a blank question is refused", () => {
    expect(checkPoll("  ", ["a", "b"])).toMatchObject({ code: "INVALID_POLL", field: "question" });
  });
  it("case and surrounding space do not make two answers different", () => {
    expect(sameAnswer("Yes", " yes")).toBe(true);
    expect(sameAnswer("Yes", "Yes!")).toBe(false);
  });
});

describe("B-228 B-232 B-233 checkVote: the complete set, zero-based", () => {
  const single = { options: ["a", "b", "c"], allowMultiple: false };
  const multi = { ...single, allowMultiple: true };
  it.each([
    [single, [0], [0]],
    [single, [], []],
    [single, [2, 2], [2]],
    [multi, [2, 0], [0, 2]],
    [multi, [], []],
  ])("%j %j → %j", (poll, vote, expected) => {
    expect(checkVote(poll, vote)).toEqual(expected);
  });
  it.each([
    [single, [0, 1], "POLL_SINGLE_CHOICE"],
    [single, [3], "INVALID_OPTION_INDEX"],
    [multi, [-1], "INVALID_OPTION_INDEX"],
    [multi, [0.5], "INVALID_OPTION_INDEX"],
  ])("%j %j → %s", (poll, vote, code) => {
    expect(checkVote(poll, vote)).toMatchObject({ code });
  });
  it("B-229 the same vote twice changes nothing", () => {
    expect(voteChanges([0, 2], [2, 0])).toBe(false);
    expect(voteChanges([0], [1])).toBe(true);
    expect(voteChanges([0], [])).toBe(true);
  });
});

describe("B-235 B-236 B-237 B-238 tallyPoll: the spec's shape", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 10, 0, s));
  const votes = [
    { voterId: "hum-a", optionIndex: 0, at: at(1) },
    { voterId: "agt-x", optionIndex: 0, at: at(2) },
    { voterId: "hum-b", optionIndex: 0, at: at(3) },
    { voterId: "hum-b", optionIndex: 2, at: at(3) },
  ];
  const poll = { id: "pol-1", allowMultiple: true, closed: false };
  it("options nobody chose are absent; voterCount counts voters, not votes; mine is the reader's", () => {
    expect(tallyPoll(poll, votes, { id: "hum-b", participant: true })).toEqual({
      id: "pol-1",
      allowMultiple: true,
      closed: false,
      options: [
        {
          index: 0,
          count: 3,
          voters: [
            { id: "hum-a", type: "USER", at: at(1).toISOString() },
            { id: "agt-x", type: "AGENT", at: at(2).toISOString() },
            { id: "hum-b", type: "USER", at: at(3).toISOString() },
          ],
        },
        { index: 2, count: 1, voters: [{ id: "hum-b", type: "USER", at: at(3).toISOString() }] },
      ],
      voterCount: 3,
      mine: [0, 2],
      canVote: true,
    });
  });
  it("a closed poll, or a reader who only reads along, cannot vote", () => {
    expect(tallyPoll({ ...poll, closed: true }, votes, { id: "hum-a", participant: true }).canVote).toBe(false);
    expect(tallyPoll(poll, votes, { id: "hum-owner", participant: false })).toMatchObject({ canVote: false, mine: [] });
  });
});

describe("B-239 pollFallback numbers the answers from one", () => {
  it("is readable where the card cannot render", () => {
    expect(pollFallback("Ship on Friday?", ["Yes", "No"], false)).toBe("📊 Ship on Friday?\n1. Yes\n2. No");
  });
});

describe("maityPollOf: the Maity twin lists every answer with its text", () => {
  it("zero answers included, voters by member id, the reader's view kept", () => {
    const at = new Date("2026-12-05T10:00:00Z");
    const tally = tallyPoll(
      { id: "pol-1", allowMultiple: true, closed: false },
      [
        { voterId: "hum-a", optionIndex: 2, at },
        { voterId: "agt-b", optionIndex: 2, at: new Date(at.getTime() + 1000) },
        { voterId: "hum-a", optionIndex: 0, at },
      ],
      { id: "hum-a", participant: true },
    );
    expect(maityPollOf(tally, { question: "Lunch?", options: ["Pizza", "Soup", "Salad"], askedBy: "hum-c" })).toEqual({
      id: "pol-1",
      question: "Lunch?",
      allow_multiple: true,
      closed: false,
      asked_by: "hum-c",
      options: [
        { index: 0, text: "Pizza", count: 1, voters: [{ member_id: "hum-a", at: at.toISOString() }] },
        { index: 1, text: "Soup", count: 0, voters: [] },
        {
          index: 2,
          text: "Salad",
          count: 2,
          voters: [
            { member_id: "hum-a", at: at.toISOString() },
            { member_id: "agt-b", at: new Date(at.getTime() + 1000).toISOString() },
          ],
        },
      ],
      voter_count: 2,
      mine: [0, 2],
      can_vote: true,
    });
  });
});

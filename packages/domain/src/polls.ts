import { type AgentPoll, type Poll, POLL_OPTIONS_MAX, POLL_OPTIONS_MIN } from "./files.ts";

// Polls (004 v1.12, B-226…B-240), the rules without I/O: what a poll may ask, what a vote may hold,
// the tally a reader sees and the plain-text fallback. The hub stores and reads; these decide.

/** A refusal with the protocol's code (B-227, B-232, B-233) and the reason in words. */
export type PollRefusal = {
  code: "INVALID_POLL" | "POLL_SINGLE_CHOICE" | "INVALID_OPTION_INDEX";
  field: string;
  message: string;
};

/** OQ-B-24: "the same word" compares trimmed and case-folded, so "Yes" and " yes" are one answer. */
export const sameAnswer = (a: string, b: string): boolean =>
  a.trim().normalize("NFC").toLocaleLowerCase("und") === b.trim().normalize("NFC").toLocaleLowerCase("und");

/** B-226, B-227: a question and 2–10 distinct answers; the trimmed values, or the refusal. */
export function checkPoll(
  question: string,
  options: readonly string[],
): PollRefusal | { question: string; options: string[] } {
  const q = question.trim();
  if (!q) return { code: "INVALID_POLL", field: "question", message: "the poll needs a question" };
  if (options.length < POLL_OPTIONS_MIN)
    return { code: "INVALID_POLL", field: "options", message: `a poll needs at least ${POLL_OPTIONS_MIN} answers` };
  if (options.length > POLL_OPTIONS_MAX)
    return { code: "INVALID_POLL", field: "options", message: `a poll takes at most ${POLL_OPTIONS_MAX} answers` };
  const trimmed = options.map((o) => o.trim());
  const empty = trimmed.findIndex((o) => !o);
  if (empty >= 0) return { code: "INVALID_POLL", field: `options.${empty}`, message: `answer ${empty + 1} is empty` };
  for (let i = 0; i < trimmed.length; i++)
    for (let j = 0; j < i; j++)
      if (sameAnswer(trimmed[i] as string, trimmed[j] as string))
        return {
          code: "INVALID_POLL",
          field: `options.${i}`,
          message: `answers ${j + 1} and ${i + 1} are the same word ("${trimmed[j]}")`,
        };
  return { question: q, options: trimmed };
}

/**
 * B-228, B-232, B-233: a vote is the complete set of zero-based indexes the voter holds; [] withdraws;
 * a repeated index counts once. Returns the set sorted, or the refusal.
 */
export function checkVote(
  poll: { options: readonly string[]; allowMultiple: boolean },
  indexes: readonly number[],
): PollRefusal | number[] {
  const bad = indexes.find((i) => !Number.isInteger(i) || i < 0 || i >= poll.options.length);
  if (bad !== undefined)
    return {
      code: "INVALID_OPTION_INDEX",
      field: "optionIndexes",
      message: `${bad} is not an answer of this poll (0–${poll.options.length - 1}, counted from zero)`,
    };
  const set = [...new Set(indexes)].sort((a, b) => a - b);
  if (set.length > 1 && !poll.allowMultiple)
    return { code: "POLL_SINGLE_CHOICE", field: "optionIndexes", message: "this poll takes one answer" };
  return set;
}

/** B-229: the same vote twice changes nothing — whether a new set differs from the held one. */
export function voteChanges(held: readonly number[], next: readonly number[]): boolean {
  if (held.length !== next.length) return true;
  const a = [...held].sort((x, y) => x - y);
  const b = [...next].sort((x, y) => x - y);
  return a.some((v, i) => v !== b[i]);
}

export type PollVoteRow = { voterId: string; optionIndex: number; at: Date };

/**
 * B-235…B-238: the tally as one reader sees it — options nobody chose are absent, voters oldest
 * first, voterCount counts people not votes, `mine` the reader's answers, canVote while open and a
 * participant. Every vote is visible (no anonymous mode).
 */
export function tallyPoll(
  poll: { id: string; allowMultiple: boolean; closed: boolean },
  votes: readonly PollVoteRow[],
  reader: { id: string; participant: boolean },
): AgentPoll {
  const byOption = new Map<number, PollVoteRow[]>();
  for (const v of votes) byOption.set(v.optionIndex, [...(byOption.get(v.optionIndex) ?? []), v]);
  const options = [...byOption.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, rows]) => ({
      index,
      count: rows.length,
      voters: [...rows]
        .sort((a, b) => a.at.getTime() - b.at.getTime() || a.voterId.localeCompare(b.voterId))
        .map((r) => ({
          id: r.voterId,
          type: r.voterId.startsWith("agt-") ? ("AGENT" as const) : ("USER" as const),
          at: r.at.toISOString(),
        })),
    }));
  return {
    id: poll.id,
    allowMultiple: poll.allowMultiple,
    closed: poll.closed,
    options,
    voterCount: new Set(votes.map((v) => v.voterId)).size,
    mine: votes
      .filter((v) => v.voterId === reader.id)
      .map((v) => v.optionIndex)
      .sort((a, b) => a - b),
    canVote: !poll.closed && reader.participant,
  };
}

/** B-239: the message's plain-text fallback numbers the answers from one (the wire counts from zero). */
export function pollFallback(question: string, options: readonly string[], allowMultiple: boolean): string {
  const lines = options.map((o, i) => `${i + 1}. ${o}`);
  return [`📊 ${question}${allowMultiple ? " (several answers allowed)" : ""}`, ...lines].join("\n");
}

/**
 * The Maity twin of a tally (the dashboard's card): every answer listed with its text and count, zero
 * included, voters by member id oldest first. Same votes, same reader rules as tallyPoll.
 */
export function maityPollOf(
  tally: AgentPoll,
  poll: { question: string; options: readonly string[]; askedBy: string },
): Poll {
  const byIndex = new Map(tally.options.map((o) => [o.index, o]));
  return {
    id: tally.id,
    question: poll.question,
    allow_multiple: tally.allowMultiple,
    closed: tally.closed,
    asked_by: poll.askedBy,
    options: poll.options.map((text, index) => {
      const held = byIndex.get(index);
      return {
        index,
        text,
        count: held?.count ?? 0,
        voters: (held?.voters ?? []).map((v) => ({ member_id: v.id, at: v.at })),
      };
    }),
    voter_count: tally.voterCount,
    mine: tally.mine,
    can_vote: tally.canVote,
  };
}

import { type AgentReaction, EMOJI_MAX_CODE_POINTS, type Reaction } from "./files.ts";

// Reactions: which strings are an emoji, and a message's reactions as each surface shows
// them. Pure; the hub stores the rows (one per member and emoji) and calls these.

const pictographic = /\p{Extended_Pictographic}/u;
/** A flag: two regional indicators. */
const flag = /^[\u{1F1E6}-\u{1F1FF}]{2}$/u;
/** A keycap: 0–9, # or *, optionally VS16, then U+20E3. */
const keycap = /^[0-9#*]\uFE0F?\u20E3$/u;
const segmenter = new Intl.Segmenter("und", { granularity: "grapheme" });

/**
 * One grapheme that is an emoji (a pictograph, a flag or a keycap) of at most
 * EMOJI_MAX_CODE_POINTS code points; the emoji as given, or null.
 */
export function checkEmoji(value: string): string | null {
  if ([...value].length > EMOJI_MAX_CODE_POINTS) return null;
  const graphemes = [...segmenter.segment(value)];
  if (graphemes.length !== 1) return null;
  return pictographic.test(value) || flag.test(value) || keycap.test(value) ? value : null;
}

export type ReactionRow = { memberId: string; emoji: string; at: Date };

/** Rows grouped by emoji, the emoji first used first, its members oldest first. */
function grouped(rows: readonly ReactionRow[]): { emoji: string; members: string[] }[] {
  const sorted = [...rows].sort((a, b) => a.at.getTime() - b.at.getTime() || a.memberId.localeCompare(b.memberId));
  const byEmoji = new Map<string, string[]>();
  for (const r of sorted) byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.memberId]);
  return [...byEmoji].map(([emoji, members]) => ({ emoji, members }));
}

/** The Maity message's `reactions`: counts, members and whether the reader is one of them. */
export const maityReactions = (rows: readonly ReactionRow[], readerId: string): Reaction[] =>
  grouped(rows).map(({ emoji, members }) => ({
    emoji,
    count: members.length,
    members,
    mine: members.includes(readerId),
  }));

/** The agent REST message's `reactions`: counts and who, typed USER or AGENT. */
export const agentReactions = (rows: readonly ReactionRow[]): AgentReaction[] =>
  grouped(rows).map(({ emoji, members }) => ({
    emoji,
    count: members.length,
    reactors: members.map((id) => ({ id, type: id.startsWith("agt-") ? ("AGENT" as const) : ("USER" as const) })),
  }));

// Agent protocol v1.15/v1.16 "History budget" (B-175…B-177): the history block of a webhook
// delivery holds at most 20 turns and ~3,000 tokens (characters / 4), filled from the newest turn
// back with the newest 3 always kept; a turn over ~1,500 tokens is cut visibly; when older turns
// are left out, the first entry says how many, and its tokens count inside the budget.

export const HISTORY_TURNS_MAX = 20;
export const HISTORY_TOKENS_MAX = 3000;
export const HISTORY_TURN_TOKENS_MAX = 1500;
export const HISTORY_KEEP_NEWEST = 3;

export interface HistoryTurn {
  id: string;
  senderId: string;
  senderName: string;
  senderType: "USER" | "AGENT" | "SYSTEM";
  content: string;
  createdAt: string;
  [extra: string]: unknown;
}

/** ~tokens of a text: characters (code points) / 4, rounded up. */
export const tokensOf = (text: string): number => Math.ceil(Array.from(text).length / 4);

/** A turn over the per-turn cap, cut with a visible `…[truncated, N characters]` (N = characters cut). */
export function cutTurn<T extends HistoryTurn>(turn: T): T {
  const points = Array.from(turn.content);
  const keep = HISTORY_TURN_TOKENS_MAX * 4;
  if (points.length <= keep) return turn;
  // The marker is inside the cap too: cut enough that text + marker stay within it.
  const marker = (n: number) => `…[truncated, ${n} characters]`;
  let kept = keep - marker(points.length).length;
  kept = Math.max(0, kept);
  return { ...turn, content: points.slice(0, kept).join("") + marker(points.length - kept) };
}

export function omittedEntry(count: number, createdAt: string): HistoryTurn {
  return {
    id: "history-omitted",
    senderId: "system",
    senderName: "BayChat",
    senderType: "SYSTEM",
    content: `[${count} earlier messages omitted]`,
    createdAt,
  };
}

/**
 * `turns`: the conversation's messages before the current one, oldest first (at least the newest
 * 20 of them); `earlier`: how many older messages exist beyond `turns`. Answers the history block.
 */
export function budgetHistory<T extends HistoryTurn>(turns: readonly T[], earlier = 0): (T | HistoryTurn)[] {
  const cut = turns.map(cutTurn);
  const kept: T[] = [];
  let tokens = 0;
  for (let i = cut.length - 1; i >= 0 && kept.length < HISTORY_TURNS_MAX; i--) {
    const turn = cut[i] as T;
    const cost = tokensOf(turn.content);
    if (kept.length >= HISTORY_KEEP_NEWEST && tokens + cost > HISTORY_TOKENS_MAX) break;
    kept.unshift(turn);
    tokens += cost;
  }
  let omitted = cut.length - kept.length + earlier;
  if (omitted === 0) return kept;
  // The notice itself is inside the budget: drop the oldest kept turns (never the newest 3) until it fits.
  const at = () => kept[0]?.createdAt ?? turns.at(-1)?.createdAt ?? new Date(0).toISOString();
  while (
    kept.length > HISTORY_KEEP_NEWEST &&
    tokens + tokensOf(omittedEntry(omitted, at()).content) > HISTORY_TOKENS_MAX
  ) {
    tokens -= tokensOf((kept.shift() as T).content);
    omitted += 1;
  }
  return [omittedEntry(omitted, at()), ...kept];
}

// Message search's pure rules (DESIGN §4d): a result's body cut at its highlights, a window of a
// long body around its first match, and results grouped by chat. The hub's highlights count code
// points of the body (not UTF-16 units), so every offset here is one of Array.from(body).

/** A stretch of a body: inside a match (shown in <mark>) or not. */
export type Part = { text: string; mark: boolean };

/** Where a match sits in a body, in code points (the hub's `highlights`). */
export type Span = { start: number; length: number };

/** The most code points a result shows of its body; a longer one is cut around its first match. */
export const EXCERPT_MAX = 160;
/** Code points kept before the first match when a long body is cut, so the match reads in context. */
export const EXCERPT_LEAD = 40;

/**
 * `points[from, to)` cut at the spans (sorted, clipped to the range; overlapping or touching spans
 * become one mark). Spans out of the body are ignored.
 */
function partsOf(points: readonly string[], spans: readonly Span[], from: number, to: number): Part[] {
  const parts: Part[] = [];
  const push = (s: number, e: number, mark: boolean) => {
    if (e <= s) return;
    const text = points.slice(s, e).join("");
    const last = parts.at(-1);
    if (last && last.mark === mark) last.text += text;
    else parts.push({ text, mark });
  };
  let at = from;
  for (const h of [...spans].sort((a, b) => a.start - b.start)) {
    if (!Number.isFinite(h.start) || !Number.isFinite(h.length) || h.length <= 0) continue;
    const s = Math.max(h.start, at);
    const e = Math.min(h.start + h.length, to);
    if (e <= s) continue;
    push(at, s, false);
    push(s, e, true);
    at = e;
  }
  push(at, to, false);
  return parts;
}

/** The whole body cut at its highlights (code points). */
export function markParts(body: string, highlights: readonly Span[]): Part[] {
  const points = Array.from(body);
  return partsOf(points, highlights, 0, points.length);
}

/**
 * What a result shows of its body: all of it when short, else a window of `max` code points that
 * starts a little (`lead`) before the first match — at a word's start when one is near — so the
 * match is on the first line whatever the body's length. `clippedStart`/`clippedEnd` say where an
 * ellipsis goes.
 */
export function excerpt(
  body: string,
  highlights: readonly Span[],
  max = EXCERPT_MAX,
  lead = EXCERPT_LEAD,
): { parts: Part[]; clippedStart: boolean; clippedEnd: boolean } {
  const points = Array.from(body);
  const n = points.length;
  if (n <= max) return { parts: partsOf(points, highlights, 0, n), clippedStart: false, clippedEnd: false };
  const inBody = highlights.filter((h) => h.length > 0 && h.start >= 0 && h.start < n);
  const first = inBody.length ? Math.min(...inBody.map((h) => h.start)) : 0;
  // Anchored to the match, never moved back to fill the window: on a narrow screen only the first
  // line or two show, so the match must stay near the start even at the end of the body.
  let start = Math.max(0, first - lead);
  // Begin after a space when there is one between the cut and the match (no half word first).
  if (start > 0) {
    for (let i = start; i < first; i++) {
      if (/\s/u.test(points[i] ?? "")) {
        start = i + 1;
        break;
      }
    }
  }
  const end = Math.min(n, start + max);
  return { parts: partsOf(points, inBody, start, end), clippedStart: start > 0, clippedEnd: end < n };
}

/** A search result as this module needs it (the hub's search.messages item). */
export type GroupableResult = {
  project: { owner: string; slug: string; name: string };
  conversation_id: string;
  conversation: { kind: "direct" | "group"; title: string };
  message: { seq: number };
};

export type ResultGroup<R extends GroupableResult> = {
  key: string;
  project: R["project"];
  conversation_id: string;
  conversation: R["conversation"];
  results: R[];
};

/** The chat a result belongs to, as one key (a conversation id is only unique inside its project). */
export const chatKey = (r: GroupableResult): string => `${r.project.owner}/${r.project.slug}/${r.conversation_id}`;

/**
 * Results grouped by chat, the groups in the order their first result came (so newest first stays
 * newest first across groups), each group's results in the order they came; a result repeated
 * across pages is shown once.
 */
export function groupByChat<R extends GroupableResult>(items: readonly R[]): ResultGroup<R>[] {
  const groups = new Map<string, ResultGroup<R>>();
  const seen = new Set<string>();
  for (const r of items) {
    const key = chatKey(r);
    const id = `${key}#${r.message.seq}`;
    if (seen.has(id)) continue;
    seen.add(id);
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        project: r.project,
        conversation_id: r.conversation_id,
        conversation: r.conversation,
        results: [],
      };
      groups.set(key, group);
    }
    group.results.push(r);
  }
  return [...groups.values()];
}

/** Where a result opens: its chat, with the message's link anchor (the chat jumps to it). */
export const resultHref = (r: GroupableResult): string =>
  `/p/${r.project.owner}/${r.project.slug}/c/${r.conversation_id}#m-${r.message.seq}`;

/** A typed query worth sending: not empty, not only spaces (the hub refuses an empty q). */
export const sendable = (q: string): boolean => q.trim() !== "";

// Mentions resolve on write against the conversation's current participants (§9.2, §8.6; DESIGN §1):
// `@handle`, `@handle#instance` and `@Display Name`, case-insensitive, word-boundary-safe, longest
// name wins; offsets and lengths in code points. In a direct conversation nothing resolves.
export interface MentionTarget {
  member_id: string;
  handle: string;
  /** A display name other than the handle (an agent's `owner/handle`, a human's name). */
  names?: string[];
}

export interface ResolvedMention {
  member_id: string;
  handle: string;
  field: "body";
  offset: number;
  length: number;
  /** The instance named by `@handle#instance`, else null. */
  instance: string | null;
}

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);
const continuesName = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_-]/u.test(ch);

export function resolveMentions(body: string, participants: MentionTarget[]): ResolvedMention[] {
  const points = Array.from(body);
  const lower = points.map((p) => p.toLowerCase());
  const candidates = participants
    .flatMap((p) => [p.handle, ...(p.names ?? [])].map((name) => ({ target: p, name: Array.from(name.toLowerCase()) })))
    .filter((c) => c.name.length > 0)
    .sort((a, b) => b.name.length - a.name.length);
  const found: ResolvedMention[] = [];
  for (let i = 0; i < points.length; i++) {
    if (points[i] !== "@" || isWordChar(points[i - 1])) continue;
    const match = candidates.find(({ name }) => {
      for (let k = 0; k < name.length; k++) if (lower[i + 1 + k] !== name[k]) return false;
      const next = points[i + 1 + name.length];
      return next === "#" || !continuesName(next);
    });
    if (!match) continue;
    let end = i + 1 + match.name.length;
    let instance: string | null = null;
    if (points[end] === "#") {
      let j = end + 1;
      while (continuesName(points[j])) j++;
      if (j > end + 1) {
        instance = points.slice(end + 1, j).join("");
        end = j;
      }
    }
    found.push({
      member_id: match.target.member_id,
      handle: match.target.handle,
      field: "body",
      offset: i,
      length: end - i,
      instance,
    });
    i = end - 1;
  }
  return found;
}

// §9.3 "Pinned": the four bands of both conversation lists, each ordered by activity, newest first.
export type Band = 0 | 1 | 2 | 3;

/** pinned+unread, unread, pinned, rest. An observer's unread null counts as none (§9.3). */
export function bandOf(item: { pinned: boolean; unread: number | null }): Band {
  const unread = (item.unread ?? 0) > 0;
  if (item.pinned && unread) return 0;
  if (unread) return 1;
  if (item.pinned) return 2;
  return 3;
}

export interface ListKey {
  band: Band;
  /** last_message_at, else a group chat's created_at or a direct conversation's joined_at (ISO). */
  activity: string;
  /** project.full_name; the same for every item of a per-project list. */
  project: string;
  id: string;
}

/** Band ascending, activity descending, then project.full_name and id ascending (§9.3 "Across projects"). */
export function compareListKeys(a: ListKey, b: ListKey): number {
  if (a.band !== b.band) return a.band - b.band;
  if (a.activity !== b.activity) return a.activity < b.activity ? 1 : -1;
  if (a.project !== b.project) return a.project < b.project ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

// base64url without Buffer: the domain also runs in the browser.
const toBase64Url = (text: string): string =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromBase64Url = (value: string): string =>
  new TextDecoder().decode(Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

/** The list cursor (§1.4): the encoded key of the last item served, never a bare timestamp. */
export function encodeListCursor(key: ListKey): string {
  return toBase64Url(JSON.stringify([key.band, key.activity, key.project, key.id]));
}

export function decodeListCursor(cursor: string): ListKey | null {
  try {
    const value: unknown = JSON.parse(fromBase64Url(cursor));
    if (!Array.isArray(value) || value.length !== 4) return null;
    const [band, activity, project, id] = value as unknown[];
    if (band !== 0 && band !== 1 && band !== 2 && band !== 3) return null;
    if (typeof activity !== "string" || typeof project !== "string" || typeof id !== "string" || id === "") return null;
    // The activity of a key the list gave out is an ISO timestamp it rendered itself.
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(activity) || Number.isNaN(Date.parse(activity)))
      return null;
    return { band, activity, project, id };
  } catch {
    return null;
  }
}

/** One page after `cursor` in list order; items that moved above the cursor since were already served. */
export function pageAfter<T>(
  items: T[],
  keyOf: (item: T) => ListKey,
  limit: number,
  cursor: ListKey | null,
): { items: T[]; next: ListKey | null } {
  const sorted = [...items].sort((a, b) => compareListKeys(keyOf(a), keyOf(b)));
  const rest = cursor ? sorted.filter((item) => compareListKeys(keyOf(item), cursor) > 0) : sorted;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return { items: page, next: rest.length > limit && last !== undefined ? keyOf(last) : null };
}

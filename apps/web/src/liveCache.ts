import { itemAfterMessage, itemAfterRead, type LiveEvent, type LiveItem, sortLiveItems } from "@maity/domain";
import type { QueryClient, QueryKey } from "@tanstack/react-query";

// The list follows the live feed in the query cache (domain itemAfterMessage /
// itemAfterRead / sortLiveItems) instead of reading the list again after every event. Only what the
// cache cannot know — a chat it does not hold (a new one, or one beyond the loaded pages) — is read.

type Item = LiveItem & { created_at?: string; project?: { owner: string; slug: string; full_name: string } };
type Page = { items: Item[]; next_cursor: string | null; totals?: { unread: number; mentions_unread: number } };
type Infinite = { pages: Page[]; pageParams: unknown[] };
type Place = { owner: string; slug: string; id: string };

const isInfinite = (data: unknown): data is Infinite => typeof data === "object" && data !== null && "pages" in data;

/** The project a cached list query is for: /me lists carry it per item, a project's list in its input. */
function inputOf(key: QueryKey): { owner?: string; slug?: string } {
  const meta = key[1] as { input?: { owner?: string; slug?: string } } | undefined;
  return meta?.input ?? {};
}

/**
 * Applies `change` to the item of `place` in every cached list under `prefixes`; false when some
 * list does not hold it (the caller then reads that list again).
 */
function updateLists(
  queryClient: QueryClient,
  prefixes: QueryKey[],
  place: Place,
  change: (item: Item) => Item,
): boolean {
  let held = true;
  for (const prefix of prefixes) {
    for (const [key, data] of queryClient.getQueriesData<Infinite | Page>({ queryKey: prefix })) {
      if (!data) continue;
      const input = inputOf(key);
      const projectOf = (item: Item) =>
        item.project ? `${item.project.owner}/${item.project.slug}` : `${input.owner}/${input.slug}`;
      const pages = isInfinite(data) ? data.pages : [data];
      const flat = pages.flatMap((p) => p.items);
      const index = flat.findIndex(
        (item) => item.id === place.id && projectOf(item) === `${place.owner}/${place.slug}`,
      );
      if (index < 0) {
        // A per-project list of another project has nothing to hold; any other list is read again.
        if (!input.owner || (input.owner === place.owner && input.slug === place.slug)) held = false;
        continue;
      }
      const before = flat[index] as Item;
      const after = change(before);
      flat[index] = after;
      const sorted = sortLiveItems(flat, projectOf);
      const delta = {
        unread: (after.unread ?? 0) - (before.unread ?? 0),
        mentions: (after.mentions_unread ?? 0) - (before.mentions_unread ?? 0),
      };
      let at = 0;
      const next = pages.map((p) => {
        const items = sorted.slice(at, at + p.items.length);
        at += p.items.length;
        const totals = p.totals
          ? { unread: p.totals.unread + delta.unread, mentions_unread: p.totals.mentions_unread + delta.mentions }
          : undefined;
        return { ...p, items, ...(totals ? { totals } : {}) };
      });
      queryClient.setQueryData(key, isInfinite(data) ? { ...data, pages: next } : next[0]);
    }
  }
  return held;
}

/**
 * Folds one live event into the cached lists. `open` is the chat on screen: its messages count as
 * read at once (the open chat marks them read on the hub). Answers false when a list must be read.
 */
export function applyLiveEvent(
  queryClient: QueryClient,
  prefixes: QueryKey[],
  event: LiveEvent,
  readerId: string,
  open: Place | null,
): boolean {
  if (!event.project || !event.conversation_id) return false;
  const place = { owner: event.project.owner, slug: event.project.slug, id: event.conversation_id };
  const isOpen = open !== null && open.owner === place.owner && open.slug === place.slug && open.id === place.id;
  if (event.kind === "message" && event.message) {
    const message = event.message;
    return updateLists(queryClient, prefixes, place, (item) => {
      const after = itemAfterMessage(item, message, readerId);
      return isOpen ? itemAfterRead(after) : after;
    });
  }
  if (event.kind === "read") return updateLists(queryClient, prefixes, place, itemAfterRead);
  return false;
}

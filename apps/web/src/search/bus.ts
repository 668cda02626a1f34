// How message search talks to the rest of the dashboard without importing it: the quick switcher
// asks the header's search to open with what was typed, and an opened result asks the chat to
// jump to a message. A jump is also kept until the chat it names takes it, so a chat that mounts
// after the navigation (another chat than the open one) still finds it.

export type ChatKey = { owner: string; slug: string; id: string };
export type JumpTarget = ChatKey & { seq: number };

const JUMP_EVENT = "maity:search-jump";
const OPEN_EVENT = "maity:search-open";

let pending: JumpTarget | null = null;
const same = (a: ChatKey, b: ChatKey) => a.owner === b.owner && a.slug === b.slug && a.id === b.id;

/** Asks the chat `target` names to show its message `seq` (the open chat hears it now, a new one on mount). */
export function requestJump(target: JumpTarget): void {
  pending = target;
  window.dispatchEvent(new CustomEvent<JumpTarget>(JUMP_EVENT, { detail: target }));
}

/** The seq a search result asked this chat to show, if one is waiting (not taken: see takeJump). */
export function pendingJump(chat: ChatKey): number | null {
  return pending && same(pending, chat) ? pending.seq : null;
}

/** The waiting jump for this chat is handled. */
export function takeJump(chat: ChatKey): void {
  if (pending && same(pending, chat)) pending = null;
}

/** Calls `fn` with each jump asked of this chat while it is open. */
export function onJump(chat: ChatKey, fn: (seq: number) => void): () => void {
  const listener = (e: Event) => {
    const t = (e as CustomEvent<JumpTarget>).detail;
    if (!t || !same(t, chat)) return;
    takeJump(chat);
    fn(t.seq);
  };
  window.addEventListener(JUMP_EVENT, listener);
  return () => window.removeEventListener(JUMP_EVENT, listener);
}

/** What opening the search asks: words to put in the field (else it keeps its own), where focus goes back. */
export type OpenSearch = { q?: string; from?: HTMLElement | null };

/**
 * Opens the header's message search: with `q` typed in it (the quick switcher's "Search messages
 * for …"), or as it was (a phone's search button, `from` getting focus back on close).
 */
export function openSearch(request: OpenSearch = {}): void {
  window.dispatchEvent(new CustomEvent<OpenSearch>(OPEN_EVENT, { detail: request }));
}

export function onOpenSearch(fn: (request: OpenSearch) => void): () => void {
  const listener = (e: Event) => fn((e as CustomEvent<OpenSearch>).detail ?? {});
  window.addEventListener(OPEN_EVENT, listener);
  return () => window.removeEventListener(OPEN_EVENT, listener);
}

import { bandOf, compareListKeys } from "./bands.ts";
import { cutPreview } from "./preview.ts";

// The dashboard updates its list from the live feed's events instead of reading the
// list again. These are the §9.3 rules a list item follows when a message arrives or the reader's
// marker moves, applied to the items the client holds.

/** The fields of a list item these rules touch (both list shapes carry them). */
export interface LiveItem {
  id: string;
  last_message_at: string | null;
  unread: number | null;
  mentions_unread: number | null;
  pinned: boolean;
  last_message: { seq: number; from: string; body: string | null; sent_at: string; redacted: boolean } | null;
}

/** A new message as the feed carries it. */
export interface LiveMessage {
  seq: number;
  from: string;
  body: string | null;
  sent_at: string;
  redacted: boolean;
  mentions: { member_id: string }[];
  /** The hub's own quiet line (DESIGN §4b): it changes nothing of the list. */
  quiet?: unknown;
}

/**
 * The item after `message`: its last message and activity, and the reader's counts — one more
 * unread (and mention) for someone else's message; none for the reader's own, since whoever speaks
 * has read up to there (§9.2). An observer's null counts stay null; an older message changes nothing.
 */
export function itemAfterMessage<T extends LiveItem>(item: T, message: LiveMessage, readerId: string): T {
  if (item.last_message && item.last_message.seq >= message.seq) return item;
  // A quiet line (an agent edited a note) moves no chat up, shows in no preview, counts in no unread.
  if (message.quiet) return item;
  const own = message.from === readerId;
  const mentioned = !own && message.mentions.some((m) => m.member_id === readerId);
  const redacted = message.redacted || message.body === null;
  return {
    ...item,
    last_message_at: message.sent_at,
    last_message: {
      seq: message.seq,
      from: message.from,
      body: redacted ? null : cutPreview(message.body as string),
      sent_at: message.sent_at,
      redacted,
    },
    unread: item.unread === null ? null : own ? 0 : item.unread + 1,
    mentions_unread: item.mentions_unread === null ? null : own ? 0 : item.mentions_unread + (mentioned ? 1 : 0),
  };
}

/** The item after the reader read up to its last message (the marker moved, §9.2). */
export function itemAfterRead<T extends LiveItem>(item: T): T {
  return item.unread === null ? item : { ...item, unread: 0, mentions_unread: 0 };
}

/** §9.3 order of the items a client holds: bands, then activity (created_at when nothing was said yet). */
export function sortLiveItems<T extends LiveItem & { created_at?: string; project?: { full_name: string } }>(
  items: T[],
  projectOf: (item: T) => string,
): T[] {
  const key = (item: T) => ({
    band: bandOf({ pinned: item.pinned, unread: item.unread }),
    activity: item.last_message_at ?? item.created_at ?? "",
    project: projectOf(item),
    id: item.id,
  });
  return [...items].sort((a, b) => compareListKeys(key(a), key(b)));
}

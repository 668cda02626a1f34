import { DEFAULT_PING_RATE, type PingRate } from "@maity/domain";
import type { Db, SqlRunner } from "@maity/db";
import type { BlobStore } from "../files/store.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { messageLive } from "./live.ts";
import { messageReads } from "./read.ts";
import { messageRedaction } from "./redact.ts";
import { messageWrites } from "./write.ts";

// Posting and reading chat messages, redaction, and the caller's slice of the event log (§9.1,
// §9.2, §8.2, §8.4). Both kinds go through the same write.
//
// One entry point, composed of the send path (messages/write.ts), the read path (messages/read.ts),
// redaction (messages/redact.ts) and the live feed's helpers (messages/live.ts).

export {
  logMessageSelect,
  type MessageReader,
  type MessageRow,
  messageSelect,
  renderEvent,
  renderMessage,
} from "./render.ts";
export type { WriteInput, Written } from "./write.ts";

export function messagesService(
  db: Db,
  sql: SqlRunner,
  bus: LiveBus,
  hooks: { webhooksQueued?: () => void } = {},
  options: { pingRate?: PingRate; blobs?: BlobStore } = {},
) {
  const pingRate = options.pingRate ?? DEFAULT_PING_RATE;
  const send = messageWrites(db, sql, bus, hooks, pingRate);
  const read = messageReads(db, sql, bus);
  const redaction = messageRedaction(db, bus, options.blobs);
  const live = messageLive(db, bus);

  return {
    post: send.post,
    markReadUpTo: read.markReadUpTo,
    /** The agent API's write into a room it resolved itself (004 §7): the same write. */
    writeIn: send.write,
    markRead: read.markRead,
    markDeliveredTo: read.markDeliveredTo,
    list: read.list,
    redact: redaction.redact,
    events: read.events,
    /** The dashboard's live feed (typed items at their log positions; delivery/subscription.ts). */
    feed: live.feed,
    lastSeq: live.lastSeq,
    routing: read.routing,
    typing: live.typing,
    postEvent: send.postEvent,
  };
}
export type MessagesService = ReturnType<typeof messagesService>;

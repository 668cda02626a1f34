import type { LogEvent } from "../src/delivery/bus.ts";

/** A rendered message event of the log (its agent rendering a stub), as the bus tests publish it. */
export const ev = (seq: number, prev: number, audience = ["agt-a"]): LogEvent => ({
  type: "event",
  seq,
  prev,
  kind: "message",
  sentAt: new Date().toISOString(),
  conversationId: "cnv-1",
  project: { owner: "o", slug: "s" },
  audience,
  agent: { event: { seq } as never, respond: [] },
});

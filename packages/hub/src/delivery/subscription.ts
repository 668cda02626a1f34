import type { BusMessage, LiveBus, LogEvent } from "./bus.ts";

// The one way into the live fan-out (DESIGN §1, §5): the dashboard's feed, /updates and /ws all
// listen through a Subscription. It follows the bus *before* the caller reads the log, so nothing
// published between the read and the wait is missed; every item carries its position in the log,
// the point a client resumes after (tRPC's `tracked` id, the agent's cursor), and a log event at or
// before the position already handed out is dropped, so a backfill and the live events never double.

/** A log event's item at its seq; a side item (typing, a read, a change) at the position when handed out. */
export type Tracked<T> = { position: number; item: T };

/** What a subscriber makes of the bus: its items, or null for what it does not show. */
export interface SubscriptionOptions<T> {
  /** Whose events: the bus hands on only log events whose audience holds this member (O(audience)). */
  memberId: string;
  /** A log event as this subscriber's item, or null. */
  event(event: LogEvent): T | null;
  /** An unordered side message as an item (or null); without it, side messages are not heard. */
  side?(message: Exclude<BusMessage, { type: "event" }>): T | null | Promise<T | null>;
}

type Waiting<T> = { seq: number; item: T } | { seq: null; item: T | null | Promise<T | null> };

export class Subscription<T> {
  /** The process's position in the log when the subscription began to listen: read the log up to it. */
  readonly head: number;
  /** The last position handed out; log items at or before it are dropped. */
  position: number;
  private waiting: Waiting<T>[] = [];
  private wake: ((why: "pending" | "aborted") => void) | null = null;
  private resynced = false;
  private stopped = false;
  private readonly stops: (() => void)[] = [];

  private constructor(bus: LiveBus, options: SubscriptionOptions<T>) {
    const follower = bus.follow((event) => {
      const item = options.event(event);
      if (item === null) return;
      this.waiting.push({ seq: event.seq, item });
      this.wake?.("pending");
    }, options.memberId);
    this.head = follower.head;
    this.position = follower.head;
    this.stops.push(() => follower.stop());
    const side = options.side;
    if (side)
      this.stops.push(
        bus.subscribe((message) => {
          if (message.type === "event" || !("audience" in message) || !message.audience.includes(options.memberId))
            return;
          this.waiting.push({ seq: null, item: side(message) });
          this.wake?.("pending");
        }),
      );
    // Side messages lost with a dropped LISTEN connection (PostgreSQL): the subscriber re-reads.
    this.stops.push(
      bus.onResync(() => {
        this.resynced = true;
        this.wake?.("pending");
      }),
    );
  }

  /** Listens from now on: the bus knows its head first (the log is read once per process). */
  static async open<T>(bus: LiveBus, options: SubscriptionOptions<T>): Promise<Subscription<T>> {
    await bus.ready();
    return new Subscription(bus, options);
  }

  /** Whether anything waits to be taken (items, or a resync to report). */
  get pending(): boolean {
    return this.waiting.length > 0 || this.resynced;
  }

  /**
   * Up to `max` waiting items in order, log items the position already covers dropped; the
   * position moves to the last log item taken. Side items are awaited here, in their place.
   */
  async take(max = Number.POSITIVE_INFINITY): Promise<Tracked<T>[]> {
    const taken: Tracked<T>[] = [];
    while (taken.length < max && this.waiting.length > 0) {
      const next = this.waiting.shift() as Waiting<T>;
      if (next.seq === null) {
        const item = await next.item;
        if (item !== null) taken.push({ position: this.position, item });
      } else if (next.seq > this.position) {
        this.position = next.seq;
        taken.push({ position: next.seq, item: next.item });
      }
    }
    return taken;
  }

  /** Whether the bus asked listeners to read again since the last call (a LISTEN reconnection). */
  takeResync(): boolean {
    const was = this.resynced;
    this.resynced = false;
    return was;
  }

  /** Waits until something is pending, `timeoutMs` passes, `signal` aborts or the subscription stops. */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<"pending" | "timeout" | "aborted"> {
    if (this.stopped || signal?.aborted) return "aborted";
    if (this.pending) return "pending";
    return new Promise((resolve) => {
      const done = (why: "pending" | "timeout" | "aborted") => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.wake = null;
        resolve(why);
      };
      const onAbort = () => done("aborted");
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => done("timeout"), Math.max(0, timeoutMs)) : null;
      signal?.addEventListener("abort", onAbort, { once: true });
      this.wake = done;
    });
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
    this.waiting = [];
    this.wake?.("aborted");
  }
}

/** What `subscribe` yields: an item, or "live from `position` on" (first, and again after a resync). */
export type Delivered<T> = Tracked<T> | { position: number; listening: true };

/**
 * A subscription as a stream (tRPC's next-sse-chat shape): listen first, then backfill the log
 * in `(after, head]` when resuming, say `listening`, then hand on live items until `signal` aborts.
 * `after` null: from now, no backfill.
 */
export async function* subscribe<T>(
  bus: LiveBus,
  options: SubscriptionOptions<T> & {
    after: number | null;
    /** The log's items in (after, upTo], oldest first, at most a page: called until it answers less. */
    backfill(after: number, upTo: number): Promise<Tracked<T>[]>;
    page: number;
    signal: AbortSignal;
  },
): AsyncGenerator<Delivered<T>> {
  const subscription = await Subscription.open(bus, options);
  try {
    const { after, signal } = options;
    if (after !== null && after < subscription.head) {
      for (let from = after; ; ) {
        const batch = await options.backfill(from, subscription.head);
        for (const tracked of batch) if (!signal.aborted) yield tracked;
        from = batch.at(-1)?.position ?? from;
        if (batch.length < options.page || signal.aborted) break;
      }
    }
    if (after !== null && after > subscription.position) subscription.position = after;
    yield { position: subscription.position, listening: true };
    while (!signal.aborted) {
      if ((await subscription.wait(Number.POSITIVE_INFINITY, signal)) === "aborted") break;
      for (const tracked of await subscription.take()) {
        if (signal.aborted) return;
        yield tracked;
      }
      if (subscription.takeResync()) yield { position: subscription.position, listening: true };
    }
  } finally {
    subscription.stop();
  }
}

import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { Message, UpdatesEvent } from "@maity/domain";
import type { PubSub } from "@maity/db";

/**
 * One appended event of the log, rendered once after its commit (DESIGN §1 "rendered once after
 * commit and fanned out from the bus"). `prev` is the seq the log ended at when this one was
 * appended (read under the append lock, append.ts), so the events form a chain a process can put
 * back in order whatever order their publishes arrive in.
 * - `maity`: the message as every Maity reader sees it (a fresh message reads alike for all);
 * - `agent`: the agent protocol's event with shouldRespond false, and the agents whose verdict is
 *   true (`respond`): each agent's copy differs only there.
 * Both are absent for other kinds, and on a stub (a payload too large for NOTIFY, or a gap the
 * process filled): the process loads such events from the log once, for all its listeners.
 */
export interface LogEvent {
  type: "event";
  seq: number;
  prev: number;
  kind: string;
  sentAt: string;
  conversationId: string | null;
  project: { owner: string; slug: string } | null;
  audience: string[];
  maity?: Message;
  agent?: { event: UpdatesEvent; respond: string[] };
}

/**
 * Side messages change no position of the log:
 * `redaction`: an event's body was taken out (it keeps its seq); `read`: a reader's marker moved
 * to `seq` (its other devices clear the badge); `typing`: a member is writing (agent protocol §7);
 * `credentials`: an agent's tokens changed (revoked, rotated by pairing), or a human's (a token
 * revoked, a session logged out): open sockets, held /updates and live streams of that member
 * re-check theirs (B-156).
 */
export type BusMessage =
  | LogEvent
  | {
      type: "redaction" | "read";
      seq: number;
      conversationId: string | null;
      project?: { owner: string; slug: string };
      audience: string[];
    }
  | {
      type: "typing";
      conversationId: string;
      project: { owner: string; slug: string };
      memberId: string;
      audience: string[];
    }
  | {
      /** A vote or a reaction changed message `seq`; the dashboard reloads it (no seq of the log moves). */
      type: "message_changed";
      seq: number;
      conversationId: string;
      project: { owner: string; slug: string };
      audience: string[];
      what: "poll" | "reactions" | "approval";
    }
  | {
      /** An agent's memory reading changed (its ring, DESIGN §4b): the people of its chats read it again. */
      type: "agent_context";
      agentId: string;
      audience: string[];
    }
  /** A session's listener changed (DESIGN §4e, B-336): sockets of other generations close with 4000. */
  | { type: "listener"; sessionId: string; generation: number }
  | { type: "credentials"; agentId: string; humanId?: undefined }
  | { type: "credentials"; humanId: string; agentId?: undefined };

const CHANNEL = "maity_bus";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more: larger events travel as a stub. */
const NOTIFY_MAX_BYTES = 7800;
/** How long an out-of-order event waits for the ones before it before the process reads the log. */
export const GAP_WAIT_MS = 150;
/** Recent events kept in order, so a listener a little behind catches up without the database. */
export const RING_SIZE = 2048;

/** Loads events with `after < seq ≤ upTo` from the log, rendered like the write renders them. */
export type LogLoader = (after: number, upTo: number) => Promise<LogEvent[]>;

/** A listener of the ordered log: every event after `head`, each once, in seq order. */
export interface LogFollower {
  /** The last seq the process had delivered when this follower started. */
  readonly head: number;
  stop(): void;
}

export class LiveBus {
  private emitter = new EventEmitter().setMaxListeners(0);
  private followers = new Set<(event: LogEvent) => void>();
  /** Followers of one member's events: an event reaches only its audience's (O(audience), not O(listeners)). */
  private memberFollowers = new Map<string, Set<(event: LogEvent) => void>>();
  /** This process, so it skips its own NOTIFYs (it already emitted them). */
  private readonly origin = randomUUID();
  private pubsub: PubSub | null = null;
  private listening: { stop(): Promise<void> } | null = null;
  /** Whether the LISTEN connection holds now: while it is down, other instances' messages are lost. */
  private heard = false;

  // The sequencer: events are delivered to followers in seq order, each once (DESIGN §1).
  private head: number | null = null;
  private priming: Promise<void> | null = null;
  private waiting = new Map<number, LogEvent>(); // by prev
  private ring: LogEvent[] = [];
  private gapTimer: NodeJS.Timeout | null = null;
  private filling = false;
  /** After close() the database is gone: nothing more is read from the log. */
  private closed = false;
  private loader: LogLoader | null = null;
  private loadHead: (() => Promise<number>) | null = null;

  /** Where the log ends and how to read it: the hub wires these at creation. */
  attach(loadHead: () => Promise<number>, loader: LogLoader): void {
    this.loadHead = loadHead;
    this.loader = loader;
  }

  /** The process's position in the log, read once; events arriving meanwhile wait. */
  ready(): Promise<void> {
    if (this.head !== null) return Promise.resolve();
    this.priming ??= (async () => {
      try {
        const head = this.loadHead ? await this.loadHead() : 0;
        if (this.head === null) this.head = head;
      } catch (error) {
        // A failed read is asked again by the next caller, not kept as the answer.
        this.priming = null;
        throw error;
      }
      this.drain();
    })();
    return this.priming;
  }

  /**
   * On PostgreSQL: every publish also NOTIFYs, and what other instances publish arrives here, so
   * an agent connected to one app instance hears a message written through another (DESIGN §5).
   */
  async connect(pubsub: PubSub): Promise<void> {
    this.pubsub = pubsub;
    this.listening = await pubsub.listen(
      CHANNEL,
      (payload) => {
        let parsed: { origin?: string; message?: BusMessage };
        try {
          parsed = JSON.parse(payload);
        } catch {
          return;
        }
        if (parsed.origin !== this.origin && parsed.message) this.receive(parsed.message);
      },
      // The LISTEN connection dropped and is back: NOTIFYs sent meanwhile are gone. The log's events
      // are read from the log now (not when the next one shows the gap); side messages have no
      // log, so the live streams are told to resync (live.feed yields `listening` again), and what
      // was kept on the strength of them (cached credentials) is read again.
      () => {
        this.heard = true;
        void this.catchUp();
        this.emitter.emit("resync");
      },
      () => {
        this.heard = false;
        this.emitter.emit("offline");
      },
    );
    this.heard = true;
    await this.ready();
  }

  /**
   * Whether every instance's bus messages reach this process now (PostgreSQL: while the LISTEN
   * connection holds; a revocation published meanwhile would be missed). Without a shared bus the
   * answer is false: in-process (PGlite) the caller knows it needs none.
   */
  get hearing(): boolean {
    return this.heard;
  }

  /** Called when the LISTEN connection drops: until `onResync`, other instances' messages do not arrive. */
  onOffline(listener: () => void): () => void {
    this.emitter.on("offline", listener);
    return () => this.emitter.off("offline", listener);
  }

  /** Reads the log past the process's head (after a LISTEN reconnection) and delivers it in order. */
  private async catchUp(): Promise<void> {
    if (this.closed || this.head === null || !this.loader || !this.loadHead) return;
    try {
      const upTo = await this.loadHead();
      for (let after = this.head; this.head !== null && after < upTo; ) {
        const missing = await this.loader(after, upTo);
        for (const event of missing) if (this.head !== null && event.seq > this.head) this.deliver(event);
        if (missing.length === 0) break;
        after = missing.at(-1)?.seq ?? upTo;
      }
    } catch (error) {
      if (!this.closed) console.error("maity: catching up on the log after a reconnection failed", error);
    } finally {
      this.drain();
    }
  }

  /** Called when side messages may have been lost (a LISTEN reconnection): re-read what you show. */
  onResync(listener: () => void): () => void {
    this.emitter.on("resync", listener);
    return () => this.emitter.off("resync", listener);
  }

  publish(message: BusMessage): void {
    this.receive(message);
    if (!this.pubsub) return;
    let payload = JSON.stringify({ origin: this.origin, message });
    if (Buffer.byteLength(payload) > NOTIFY_MAX_BYTES && message.type === "event") {
      const { maity: _m, agent: _a, ...stub } = message;
      payload = JSON.stringify({ origin: this.origin, message: stub });
    }
    // Fire and forget: a lost NOTIFY is a gap the other instances fill from the log.
    this.pubsub.notify(CHANNEL, payload).catch((error: unknown) => console.error("maity: bus notify failed", error));
  }

  private receive(message: BusMessage): void {
    if (message.type !== "event") {
      // A redacted message kept in the ring loses its rendering: a catch-up then reads the log.
      if (message.type === "redaction")
        this.ring = this.ring.map((e) =>
          e.seq === message.seq ? { ...e, maity: undefined, agent: undefined } : e,
        ) as LogEvent[];
      this.emitter.emit("message", message);
      this.emitter.emit(message.type, message);
      return;
    }
    if (this.head !== null && message.seq <= this.head) return;
    if (message.kind === "message" && !message.agent && this.loader) {
      if (this.closed) return;
      // A stub (too large for NOTIFY): loaded once here, then ordered like any other.
      this.loader(message.seq - 1, message.seq)
        .then(([loaded]) => this.receive(loaded ? { ...loaded, prev: message.prev } : { ...message, kind: "gone" }))
        .catch((error: unknown) => console.error("maity: loading an event failed", error));
      return;
    }
    this.waiting.set(message.prev, message);
    if (this.head === null) {
      // The waiting events go out once the head is known; a failed read leaves them for the next ready().
      this.ready().catch((error: unknown) => console.error("maity: reading the log's head failed", error));
      return;
    }
    this.drain();
  }

  /** Delivers every waiting event that follows the head; a gap left open is filled from the log. */
  private drain(): void {
    if (this.head === null) return;
    for (const [prev, event] of this.waiting) if (event.seq <= this.head) this.waiting.delete(prev);
    for (let next = this.waiting.get(this.head); next; next = this.waiting.get(this.head)) {
      this.waiting.delete(this.head);
      this.deliver(next);
    }
    if (this.waiting.size === 0) {
      if (this.gapTimer) clearTimeout(this.gapTimer);
      this.gapTimer = null;
    } else if (!this.gapTimer) {
      this.gapTimer = setTimeout(() => void this.fill(), GAP_WAIT_MS);
      this.gapTimer.unref();
    }
  }

  /** Hands one event on in order; a stub is loaded from the log first (once for every follower). */
  private deliver(event: LogEvent): void {
    this.head = event.seq;
    this.ring.push(event);
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    this.emitter.emit("message", event);
    for (const follower of this.followers) follower(event);
    for (const member of event.audience) {
      const listeners = this.memberFollowers.get(member);
      if (listeners) for (const follower of listeners) follower(event);
    }
  }

  /** The gap before the oldest waiting event: its events committed before it, so the log has them. */
  private async fill(): Promise<void> {
    this.gapTimer = null;
    if (this.closed || this.filling || this.head === null || this.waiting.size === 0 || !this.loader) return;
    this.filling = true;
    try {
      const upTo = Math.min(...this.waiting.keys());
      const missing = await this.loader(this.head, upTo);
      for (const event of missing) if (this.head !== null && event.seq > this.head) this.deliver(event);
      // Nothing else can come before `upTo` now: a seq the log lacks was rolled back.
      if (this.head !== null && this.head < upTo) this.head = upTo;
    } catch (error) {
      if (!this.closed) console.error("maity: filling a gap of the log failed", error);
    } finally {
      this.filling = false;
      this.drain();
    }
  }

  /**
   * Follows the ordered log from the process's head on (after `ready()`): `listener` gets every
   * later event once, in seq order — or, with `memberId`, every later event whose audience holds
   * that member. Events up to `head` are for the caller to read (`recent`).
   */
  follow(listener: (event: LogEvent) => void, memberId?: string): LogFollower {
    if (memberId === undefined) {
      this.followers.add(listener);
      return { head: this.head ?? 0, stop: () => this.followers.delete(listener) };
    }
    const own = this.memberFollowers.get(memberId) ?? new Set<(event: LogEvent) => void>();
    this.memberFollowers.set(memberId, own);
    own.add(listener);
    return {
      head: this.head ?? 0,
      stop: () => {
        own.delete(listener);
        if (own.size === 0 && this.memberFollowers.get(memberId) === own) this.memberFollowers.delete(memberId);
      },
    };
  }

  /** The kept events after `after`, or null when the ring no longer reaches back that far. */
  recent(after: number, upTo: number): LogEvent[] | null {
    const first = this.ring[0];
    if (!first || first.prev > after) return after >= (this.head ?? 0) ? [] : null;
    return this.ring.filter((e) => e.seq > after && e.seq <= upTo);
  }

  /**
   * Unordered side messages (and, for compatibility, every delivered event) — or only those of one
   * type: an open socket listens for `credentials` alone, so a message costs it nothing.
   */
  subscribe(listener: (message: BusMessage) => void, only?: Exclude<BusMessage["type"], "event">): () => void {
    const name = only ?? "message";
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    this.pubsub = null;
    this.heard = false;
    await this.listening?.stop();
    this.listening = null;
  }
}

/** Whether a bus message is addressed to `memberId` (the types that carry an audience). */
export function reaches(message: BusMessage, memberId: string): boolean {
  return "audience" in message && message.audience.includes(memberId);
}

import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { PubSub } from "@maity/db";

/**
 * The live bus carries only seqs and ids; readers load from the database (DESIGN.md §3).
 * `event`: a new event in the log; `redaction`: an event's body was taken out (it keeps its seq);
 * `read`: a reader's marker moved to `seq` (its other devices clear the badge);
 * `typing`: a member is writing in a conversation (agent protocol §7);
 * `credentials`: an agent's tokens changed (revoked, rotated by pairing): open sockets re-check theirs.
 */
export type BusMessage =
  | { type: "event" | "redaction" | "read"; seq: number; conversationId: string | null; audience: string[] }
  | { type: "typing"; conversationId: string; project: { owner: string; slug: string }; memberId: string; audience: string[] }
  | { type: "credentials"; agentId: string };

const CHANNEL = "maity_bus";

export class LiveBus {
  private emitter = new EventEmitter().setMaxListeners(0);
  /** This process, so it skips its own NOTIFYs (it already emitted them). */
  private readonly origin = randomUUID();
  private pubsub: PubSub | null = null;
  private listening: { stop(): Promise<void> } | null = null;

  /**
   * On PostgreSQL: every publish also NOTIFYs, and what other instances publish arrives here, so
   * an agent connected to one app instance hears a message written through another (DESIGN §5).
   */
  async connect(pubsub: PubSub): Promise<void> {
    this.pubsub = pubsub;
    this.listening = await pubsub.listen(CHANNEL, (payload) => {
      let parsed: { origin?: string; message?: BusMessage };
      try {
        parsed = JSON.parse(payload);
      } catch {
        return;
      }
      if (parsed.origin !== this.origin && parsed.message) this.emitter.emit("message", parsed.message);
    });
  }

  publish(message: BusMessage): void {
    this.emitter.emit("message", message);
    // Fire and forget: a lost NOTIFY delays another instance's listeners until their next poll or
    // idle cursor; it never loses an event, which lives in the log.
    this.pubsub?.notify(CHANNEL, JSON.stringify({ origin: this.origin, message })).catch((error: unknown) => console.error("maity: bus notify failed", error));
  }

  subscribe(listener: (message: BusMessage) => void): () => void {
    this.emitter.on("message", listener);
    return () => this.emitter.off("message", listener);
  }

  async close(): Promise<void> {
    this.pubsub = null;
    await this.listening?.stop();
    this.listening = null;
  }
}

/** Whether a bus message is addressed to `memberId` (the types that carry an audience). */
export function reaches(message: BusMessage, memberId: string): boolean {
  return "audience" in message && message.audience.includes(memberId);
}

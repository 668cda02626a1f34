import { EventEmitter } from "node:events";

/** The live bus: carries only seqs and ids; readers load from the database (DESIGN.md §3). */
/**
 * `event`: a new event in the log; `redaction`: an event's body was taken out (it keeps its seq);
 * `read`: a reader's marker moved to `seq` (its other devices clear the badge).
 */
export type BusMessage = { type: "event" | "redaction" | "read"; seq: number; conversationId: string | null; audience: string[] };

export class LiveBus {
  private emitter = new EventEmitter().setMaxListeners(0);
  publish(message: BusMessage): void {
    this.emitter.emit("message", message);
  }
  subscribe(listener: (message: BusMessage) => void): () => void {
    this.emitter.on("message", listener);
    return () => this.emitter.off("message", listener);
  }
}

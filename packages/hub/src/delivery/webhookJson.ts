import { randomUUID } from "node:crypto";
import type { ContextEnvelope, HistoryTurn, InstructionPieces, UpdatesEvent, WebhookDelivery } from "@maity/domain";
import type { RoomEnvelope } from "../messages/agentView.ts";

// The bytes of a webhook body (004 §11) made from parts shared by a fan-out: one message to many
// agents differs only in a few fields per agent (the delivery id, the verdict, `you`, the file
// count, the instructions' first line and the reader's own roster line), so its JSON is made once
// with holes and each body is the shared bytes with that agent's fragments copied in. The bytes are
// JSON.stringify's of the whole body, key order included: JSON.stringify of an object is the
// concatenation of its members' JSON, and a string's JSON is the concatenation of its pieces' JSON
// when no piece boundary splits a surrogate pair (the instructions split only before a line break).

/** A hole's mark: a NUL and a per-process nonce, which no stored text holds. */
const NONCE = randomUUID().replace(/-/g, "");
const HOLE = new RegExp(`"\\\\u0000${NONCE}([a-z]+)\\\\u0000"`, "g");

/** A body's bytes: the shared ones, and the hole each agent's fragment fills, in order. */
export type Template<K extends string> = { parts: Buffer[]; holes: K[] };

/** JSON.stringify(build(hole)) with each `hole(name)` left open; fill it with `fill`. */
export function jsonTemplate<K extends string>(build: (hole: (name: K) => string) => unknown): Template<K> {
  const json = JSON.stringify(build((name) => `\u0000${NONCE}${name}\u0000`));
  const parts: Buffer[] = [];
  const holes: K[] = [];
  let at = 0;
  for (const m of json.matchAll(HOLE)) {
    parts.push(Buffer.from(json.slice(at, m.index)));
    holes.push(m[1] as K);
    at = m.index + m[0].length;
  }
  parts.push(Buffer.from(json.slice(at)));
  return { parts, holes };
}

/** The template's bytes with each hole's fragment (a JSON text, or its bytes in pieces). */
export function fill<K extends string>(t: Template<K>, fragments: Record<K, Buffer | Buffer[]>): Buffer {
  const list: Buffer[] = [];
  for (let i = 0; i < t.holes.length; i++) {
    list.push(t.parts[i] as Buffer);
    const f = fragments[t.holes[i] as K];
    if (Array.isArray(f)) list.push(...f);
    else list.push(f);
  }
  list.push(t.parts[t.holes.length] as Buffer);
  return Buffer.concat(list);
}

/** A string's JSON without its quotes. */
const inner = (text: string): string => JSON.stringify(text).slice(1, -1);

/** The JSON bytes of a room's readers' instructions: its roster lines encoded once. */
export function instructionsJson() {
  let encoded: { lines: readonly string[]; bytes: Buffer; starts: number[] } | null = null;
  const tails = new Map<string, Buffer>();
  const linesOf = (lines: readonly string[]) => {
    if (encoded?.lines !== lines) {
      const chunks = lines.map((l) => Buffer.from(inner(l)));
      const starts: number[] = [];
      let at = 0;
      for (const c of chunks) {
        starts.push(at);
        at += c.byteLength;
      }
      starts.push(at);
      encoded = { lines, bytes: Buffer.concat(chunks), starts };
    }
    return encoded;
  };
  return (p: InstructionPieces): Buffer[] => {
    const { bytes, starts } = linesOf(p.lines);
    let tail = tails.get(p.tail);
    if (!tail) {
      tail = Buffer.from(`${inner(p.tail)}"`);
      tails.set(p.tail, tail);
    }
    const out: Buffer[] = [Buffer.from(`"${inner(p.head)}`)];
    let from = 0;
    for (const { index, line } of [...p.own].sort((a, b) => a.index - b.index)) {
      out.push(bytes.subarray(starts[from], starts[index]), Buffer.from(inner(line)));
      from = index + 1;
    }
    out.push(bytes.subarray(starts[from], starts[p.lines.length]), tail);
    return out;
  };
}

export type BodyHole = "delivery" | "project" | "message" | "instructions" | "sha" | "you" | "verdict";

/** What every delivery of one message to one room (and one history floor) shares. */
export interface BodyShared {
  event: UpdatesEvent;
  sender: WebhookDelivery["sender"];
  replyTo: WebhookDelivery["replyTo"];
  envelope: RoomEnvelope["shared"];
  history: HistoryTurn[];
}

/** One agent's own: its delivery, project (notes and file count), message (with its verdict), `you` and instructions. */
export interface BodyOwn {
  deliveryId: string;
  /** B-167: the project as this agent reads it — metadata only, the text is in the instructions. */
  project: WebhookDelivery["project"];
  /** The message's JSON as this agent reads it (its verdict, B-164). */
  message: Buffer;
  shouldRespond: boolean;
  you: ContextEnvelope["you"];
  instructions: Buffer[];
  /** The sha256 of the instructions joined (the envelope's `instructionsSha256`). */
  instructionsSha256: string;
}

/** The body's JSON with the agent's own fields left open, in the contract's key order (004 §11). */
export const bodyTemplate = (s: BodyShared): Template<BodyHole> =>
  jsonTemplate<BodyHole>((hole) => ({
    event: "message.created",
    deliveryId: hole("delivery"),
    conversationId: s.event.conversationId,
    conversation: s.event.conversation,
    // B-167: metadata only, this agent's (B-168: fileCount is what its list_files here lists; a visitor's notes).
    project: hole("project"),
    message: hole("message"),
    sender: s.sender,
    replyTo: s.replyTo,
    participants: s.envelope.participants,
    instructions: hole("instructions"),
    instructionsSha256: hole("sha"),
    context: { ...s.envelope, you: hole("you"), instructions: hole("instructions"), instructionsSha256: hole("sha") },
    // B-164: the same signal as `→ you should respond`.
    you: hole("verdict"),
    history: s.history,
  }));

/** One agent's body: JSON.stringify of the whole WebhookDelivery, as bytes. */
export const bodyBytes = (t: Template<BodyHole>, own: BodyOwn): Buffer =>
  fill(t, {
    delivery: Buffer.from(JSON.stringify(own.deliveryId)),
    project: Buffer.from(JSON.stringify(own.project)),
    sha: Buffer.from(JSON.stringify(own.instructionsSha256)),
    message: own.message,
    instructions: own.instructions,
    you: Buffer.from(JSON.stringify(own.you)),
    verdict: Buffer.from(JSON.stringify({ ...own.you, shouldRespond: own.shouldRespond })),
  });

import { eventId, type HubEvent, type Message, quietOf, redactionReasonVisible } from "@maity/domain";
import type { Db } from "@maity/db";
import { isProjectAdmin } from "../access/resolve.ts";
import { agentMessageSelect } from "./agentView.ts";
import type { Caller } from "../access/caller.ts";
import { attachmentsOf, cardOf } from "../files/render.ts";

// A message's row and its Maity rendering (§9.1, §9.2, §8.5): what every read, the write's answer
// and the bus render from.

export const messageSelect = {
  seq: true,
  kind: true,
  fromId: true,
  toId: true,
  fromInstanceId: true,
  toInstanceId: true,
  body: true,
  mentions: true,
  metadata: true,
  sentAt: true,
  deliveredAt: true,
  redacted: true,
  payload: true,
  redaction: { select: { at: true, byId: true, reason: true } },
  conversation: { select: { publicId: true, kind: true } },
  replyToSeq: true,
  card: true,
  attachments: true,
} as const;

export type MessageRow = {
  seq: number;
  kind: string;
  fromId: string;
  toId: string | null;
  fromInstanceId: string | null;
  toInstanceId: string | null;
  body: string | null;
  mentions: unknown;
  /** The hub's own lines carry `{type, actor}` here (quiet lines, DESIGN §4b). */
  metadata?: unknown;
  sentAt: Date;
  deliveredAt: Date | null;
  redacted: boolean;
  payload: unknown;
  redaction: { at: Date; byId: string; reason: string | null } | null;
  conversation: { publicId: string; kind: string } | null;
  replyToSeq?: number | null;
  /** `{type, payload}` of a card message (B-217). */
  card?: unknown;
  /** The files' §8.7 metadata in render order. */
  attachments?: unknown;
};

/** Who reads a message: the redaction reason shows to its redactor and to project admins (§8.5, docs/api.md). */
export type MessageReader = { id: string; admin: boolean };

export async function readerOf(db: Db, caller: Caller, projectId: string): Promise<MessageReader> {
  return { id: caller.id, admin: caller.kind === "human" && (await isProjectAdmin(db, projectId, caller.id)) };
}

export function renderMessage(row: MessageRow, reader: MessageReader): Message {
  const redacted = row.redacted;
  const direct = row.conversation?.kind === "direct";
  const message: Message = {
    id: eventId(row.seq),
    seq: row.seq,
    conversation_id: row.conversation?.publicId ?? "",
    from: row.fromId,
    to: row.toId ?? "",
    body: redacted ? null : row.body,
    sent_at: row.sentAt.toISOString(),
    mentions: redacted ? [] : (row.mentions as Message["mentions"]),
    // M-038: a redacted message carries none (their bytes are deleted, §8.7).
    attachments: redacted ? [] : attachmentsOf(row.attachments),
    from_instance: row.fromInstanceId,
    // §9.1: as the human wrote it; group chats always carry null.
    to_instance: direct ? row.toInstanceId : null,
    redacted,
    redaction: row.redaction
      ? {
          at: row.redaction.at.toISOString(),
          by: row.redaction.byId,
          reason: redactionReasonVisible(reader, row.redaction.byId) ? row.redaction.reason : null,
        }
      : null,
  };
  // The dashboard quotes what a reply answers; only a reply carries the field.
  if (row.replyToSeq) message.reply_to = row.replyToSeq;
  const card = redacted ? null : cardOf(row.card);
  if (card) message.card = card;
  const quiet = quietOf(row.fromId, row.metadata);
  if (quiet) message.quiet = quiet;
  // A group message has no delivered_at: several recipients, no read receipts (§9.2).
  return direct ? withDelivered(message, row.deliveredAt) : message;
}

function withDelivered(message: Message, deliveredAt: Date | null): Message {
  const { id, seq, conversation_id, from, to, body, sent_at, ...rest } = message;
  return {
    id,
    seq,
    conversation_id,
    from,
    to,
    body,
    sent_at,
    delivered_at: deliveredAt?.toISOString() ?? null,
    ...rest,
  };
}

export function renderEvent(row: MessageRow, reader: MessageReader): HubEvent {
  if (row.kind === "message") return { ...renderMessage(row, reader), kind: "message", type: "chat" };
  const payload = (row.payload ?? {}) as { conversation: Record<string, unknown>; changed?: Record<string, unknown> };
  return {
    id: eventId(row.seq),
    seq: row.seq,
    kind: row.kind === "conversation_created" ? "conversation_created" : "conversation_updated",
    conversation_id: row.conversation?.publicId ?? "",
    from: row.fromId,
    sent_at: row.sentAt.toISOString(),
    payload,
  };
}

/** The message columns both surfaces and the bus render from. */
export const logMessageSelect = {
  ...messageSelect,
  ...agentMessageSelect,
  redaction: messageSelect.redaction,
  conversation: { select: { ...messageSelect.conversation.select, ...agentMessageSelect.conversation.select } },
} as const;

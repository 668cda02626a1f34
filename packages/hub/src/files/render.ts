import { type AgentMessage, type Attachment, attachmentSchema, type Card, cardSchema } from "@maity/domain";
import { z } from "zod";
import type { FileKeys } from "./keys.ts";

// How a message's card and files are rendered on both surfaces (004 §13, §14). The rows' Json columns
// are parsed with the wire schemas, never cast: a row that does not parse renders as none.

const storedAttachments = z.array(attachmentSchema);

/** A stored card (events.card) as the Maity message carries it, or null. */
export function cardOf(value: unknown): Card | null {
  const parsed = cardSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The files' §8.7 metadata of a message (events.attachments), in render order; [] when none. */
export function attachmentsOf(value: unknown): Attachment[] {
  if (value === null || value === undefined) return [];
  const parsed = storedAttachments.safeParse(value);
  return parsed.success ? parsed.data : [];
}

/**
 * B-181, B-182, B-183: the agent-facing `metadata.attachments[]` without URLs — `type` from the stored
 * MIME type, never a file name (B-184). URLs are added where a reader gets the message (signAgentMessage),
 * so every read signs afresh (B-185) on the base URL that reader uses.
 */
export function agentAttachmentMetadata(
  metadata: Record<string, unknown> | null,
  attachments: Attachment[],
): Record<string, unknown> | null {
  if (attachments.length === 0) return metadata;
  const files = attachments.map((a) => ({
    attachmentId: a.id,
    type: a.type,
    mimeType: a.mime_type,
    sizeBytes: a.size,
  }));
  // B-182: the legacy single-file mirror of attachments[0], written on every attachment message.
  return { ...(metadata ?? {}), attachments: files, attachmentId: files[0]?.attachmentId };
}

/** Signs one attachment id for a reader on `baseUrl` (no trailing slash): an absolute URL, ~1 h. */
export type Signer = (attachmentId: string) => string;
export const signerOf =
  (keys: FileKeys, baseUrl: string): Signer =>
  (id) =>
    `${baseUrl.replace(/\/+$/, "")}${keys.signedPath(id).path}`;

/**
 * The message as one reader gets it: each `metadata.attachments[]` item with a fresh `attachmentUrl`,
 * and the legacy `metadata.attachmentUrl` mirror (B-181, B-182, B-185). A message without files is
 * returned as it is.
 */
export function signAgentMessage<M extends Pick<AgentMessage, "metadata">>(message: M, sign: Signer): M {
  const metadata = message.metadata;
  const files = metadata?.attachments;
  if (!metadata || !Array.isArray(files) || files.length === 0) return message;
  const signed = files.map((f) => {
    const file = f as Record<string, unknown>;
    return { ...file, attachmentUrl: sign(String(file.attachmentId)) };
  });
  return { ...message, metadata: { ...metadata, attachments: signed, attachmentUrl: signed[0]?.attachmentUrl } };
}

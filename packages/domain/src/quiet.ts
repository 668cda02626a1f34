import { z } from "zod";
import { oneLine } from "./instructions.ts";

// Quiet lines (DESIGN §4b): what the hub itself says in a chat — "agent-a edited Pricing tiers",
// "agent-a tidied its memory · 940k → 58k". A message of the chat from "system" that wakes nobody,
// counts in no unread or mention and notifies nobody; on the agent API `senderType: "SYSTEM"` with
// `metadata.type`, `shouldRespond: false`. No sender may write one (RESERVED_MESSAGE_TYPES, B-118).

export const QUIET_TYPES = [
  "note.edited",
  "note.read",
  "context.compacted",
  "context.handoff",
  // B-307: "<name> was sent home" in every room a recalled visitor leaves.
  "visitor.sent_home",
  // DESIGN §4e: "Olga approved: Deploy now" under a decision card (B-313).
  "approval.decided",
] as const;
export type QuietType = (typeof QUIET_TYPES)[number];
/** The sender of the hub's own lines. */
export const SYSTEM_SENDER = "system";

export const quietSchema = z.object({ type: z.enum(QUIET_TYPES), actor: z.string() });
export type Quiet = z.output<typeof quietSchema>;

/** A stored message's quiet marker: from "system" with a quiet type and its actor in metadata; else null. */
export function quietOf(fromId: string, metadata: unknown): Quiet | null {
  if (fromId !== SYSTEM_SENDER || !metadata || typeof metadata !== "object") return null;
  const { type, actor } = metadata as { type?: unknown; actor?: unknown };
  return (QUIET_TYPES as readonly unknown[]).includes(type) && typeof actor === "string"
    ? { type: type as QuietType, actor }
    : null;
}

/** The words of a note's quiet line: "<actor> edited <title>" / "<actor> opened <title>". */
export function noteQuietText(type: "note.edited" | "note.read", actorName: string, title: string): string {
  return `${oneLine(actorName)} ${type === "note.edited" ? "edited" : "opened"} ${oneLine(title)}`;
}

import type { Db } from "@maity/db";
import type { LiveBus } from "./bus.ts";
import { type KeyRow, readParticipants } from "../access/visibility.ts";

/**
 * Someone is writing in a chat (004 §7 for agents; the dashboard's composer for people): the other
 * participants hear it on the live bus, for a moment, nothing stored. The server never makes one up.
 */
export async function publishTyping(db: Db, bus: LiveBus, row: KeyRow, memberId: string): Promise<void> {
  const participants = (await readParticipants(db, [row.key])).get(row.key) ?? [];
  bus.publish({
    type: "typing",
    conversationId: row.id,
    project: { owner: row.projectOwner, slug: row.projectSlug },
    memberId,
    audience: participants.map((p) => p.memberId).filter((id) => id !== memberId),
  });
}

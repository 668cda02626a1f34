import type { Tx } from "@maity/db";
import { logHead, takeAppendLock } from "../delivery/append.ts";

/** §9.1: a direct conversation exists while the agent is a member; its id is the agent's member id. */
export async function ensureDirectConversation(tx: Tx, projectId: string, agentId: string): Promise<void> {
  // Under the append lock, like a group chat's join: a message is either before the marker set
  // below or written after this participation exists, and then counts in its unread (counters.ts).
  await takeAppendLock(tx);
  const agent = await tx.agent.findUniqueOrThrow({ where: { id: agentId }, select: { ownerId: true } });
  const existing = await tx.conversation.findUnique({
    where: { projectId_publicId: { projectId, publicId: agentId } },
    select: { id: true },
  });
  const conversation =
    existing ??
    (await tx.conversation.create({
      data: { projectId, publicId: agentId, kind: "direct", agentId, createdById: null },
      select: { id: true },
    }));
  for (const [memberId, memberKind] of [
    [agentId, "agent"],
    [agent.ownerId, "human"],
  ] as const) {
    const open = await tx.participation.findFirst({
      where: { conversationId: conversation.id, memberId, leftAt: null },
      select: { id: true },
    });
    if (!open) {
      const last = await logHead(tx);
      await tx.participation.create({
        data: {
          conversationId: conversation.id,
          memberId,
          memberKind,
          joinedSeq: 0,
          readMarkerSeq: existing ? last : 0,
        },
      });
    }
  }
}

/** The agent left the project: its direct conversation ends with the membership. */
export async function closeDirectFor(tx: Tx, projectId: string, agentId: string): Promise<void> {
  await tx.participation.updateMany({
    where: { leftAt: null, conversation: { projectId, publicId: agentId, kind: "direct" } },
    data: { leftAt: new Date(), leftReason: "membership_ended" },
  });
}

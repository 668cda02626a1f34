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
    select: { id: true, lastSeq: true, lastMessageAt: true },
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
      // §9.3 activity (the list's index, M-227): the window is the whole conversation (joined_seq 0),
      // so its last message if any, else the agent's joined_at in the project.
      const activityAt =
        existing?.lastSeq && existing.lastMessageAt
          ? existing.lastMessageAt
          : ((
              await tx.membership.findUnique({
                where: { projectId_memberId: { projectId, memberId: agentId } },
                select: { joinedAt: true },
              })
            )?.joinedAt ?? new Date());
      await tx.participation.create({
        data: {
          conversationId: conversation.id,
          memberId,
          memberKind,
          joinedSeq: 0,
          readMarkerSeq: existing ? last : 0,
          activityAt,
          projectId,
          directAgentId: agentId,
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

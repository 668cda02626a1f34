import { HubError, type JoinSessionGroupOutput, SESSIONS_PROJECT_SLUG } from "@maity/domain";
import type { Db } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";
import { restrictedTo } from "../agents/directory.ts";
import type { AgentService } from "../agents/service.ts";
import { ensureDirectConversation } from "../conversations/direct.ts";
import { enterGroup } from "../conversations/participation.ts";
import { admitMember } from "../conversations/placement.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { ROOM_SELECT, roomOf, SESSIONS_CREATOR } from "./rooms.ts";

// join_session_group (004 v1.9, B-323, B-304): a persistent agent enters its own Bay's existing
// Sessions group — never a private chat — and is told its roster and policy; a session uses join_session.

/**
 * join_session_group (v1.9, B-323): a persistent agent enters its own Bay's Sessions group — the
 * existing one only, never a private chat — and is told its roster and policy. Refused on the
 * restricted profile (B-304: visiting, or beside a visitor).
 */
export async function joinSessionGroup(
  db: Db,
  bus: LiveBus,
  agents: AgentService,
  agent: AgentCaller,
): Promise<JoinSessionGroupOutput> {
  // A session joins with join_session {sessions: true}, in its credential's Bay (B-324).
  if (agent.session)
    throw HubError.forbidden(
      "sessions_use_join_session",
      "a session joins the Sessions group with join_session {session, sessions: true}",
    );
  if (await restrictedTo(db, agent))
    throw HubError.forbidden(
      "guest_restricted_tool",
      "join_session_group is paused while you visit another Bay or share a room with a visitor",
      { agentCode: "GUEST_RESTRICTED_TOOL" },
    );
  const owner = await db.human.findUniqueOrThrow({ where: { id: agent.ownerId }, select: { bayId: true } });
  const found = await db.conversation.findFirst({
    where: {
      kind: "group",
      createdById: SESSIONS_CREATOR,
      closedAt: null,
      project: { bayId: owner.bayId, slug: SESSIONS_PROJECT_SLUG, archivedAt: null },
    },
    select: ROOM_SELECT,
    orderBy: { createdAt: "asc" },
  });
  if (!found)
    throw HubError.notFound(
      "your Bay has no Sessions group yet: it is made when a person's session joins it (join_session sessions: true)",
    ).named("GROUP_NOT_FOUND");
  const room = roomOf(found);
  const message = await db.$transaction(async (tx) => {
    await admitMember(tx, room.projectId, agent.id);
    await ensureDirectConversation(tx, room.projectId, agent.id);
    return enterGroup(tx, room, agent.id, agent.id, { uncapped: true });
  });
  if (message) bus.publish(message);
  const context = await agents.context(agent, room.key);
  if (!context) throw HubError.notFound("conversation not found");
  return {
    conversationId: room.key,
    title: room.title,
    participants: context.participants,
    policy: context.policy,
    agentInteraction: (context.policy.maxAgentRounds ?? 0) > 0,
  };
}

import { HubError, type ProjectRef, placementOf } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { Caller } from "../access/caller.ts";
import { projectOf, refuseDirect, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { ensureDirectConversation } from "./direct.ts";

// Placing a visiting agent (004 v1.14, DESIGN §4c, B-300): who may put another Bay's agent into a
// chat (its sponsor, a participant there), what a refusal may tell, and the membership the first
// placement makes. The rule itself is domain placementOf; groups.ts adds and removes with these.

export const notSponsor = () =>
  HubError.forbidden("not_sponsor", "only the person who brings a visiting agent places it");

/**
 * The placement of a visiting agent (DESIGN §4c), or null for anyone else's addition: the room as
 * the sponsor sees it. Not the sponsor — a project admin included — 403 not_sponsor; the sponsor
 * not in the room (an observer, or outside it) is refused as a manager would be.
 */
export async function visitorPlacement(
  db: Db,
  caller: Caller,
  ref: ProjectRef,
  conversationId: string,
  data: { member_id: string; wake?: string },
) {
  if (!data.member_id.startsWith("agt-")) return null;
  const [agent, project] = await Promise.all([
    db.agent.findUnique({
      where: { id: data.member_id },
      select: { ownerId: true, owner: { select: { bayId: true } } },
    }),
    projectOf(db, ref),
  ]);
  if (!agent || !project) return null;
  const placement = placementOf({ ownerId: agent.ownerId, homeBayId: agent.owner.bayId }, project.bayId, caller.id);
  if (placement === "member") return null;
  // Another's agent that is no member here is unknown to the caller: §9's not_a_member, never a
  // not_sponsor that would tell an agent id of another Bay exists (hidden = missing).
  if (placement === "not_sponsor") {
    const member = await db.membership.findFirst({
      where: { projectId: project.id, memberId: data.member_id, status: "active" },
      select: { id: true },
    });
    if (!member) return null;
  }
  const row = await resolveConversation(db, caller, ref, conversationId);
  refuseDirect(row);
  if (placement === "not_sponsor") throw notSponsor();
  refuseObserver(row);
  if (row.access !== "participant")
    throw HubError.forbidden("not_sponsor", "a visitor is placed only into a room its sponsor is in");
  return { row };
}

/** Whether `caller` brought `memberId`, an agent visiting the room's project (DESIGN §4c). */
export async function sponsorsVisitor(db: Db, caller: Caller, projectId: string, memberId: string): Promise<boolean> {
  if (caller.kind !== "human" || !memberId.startsWith("agt-")) return false;
  const [agent, project] = await Promise.all([
    db.agent.findUnique({ where: { id: memberId }, select: { ownerId: true, owner: { select: { bayId: true } } } }),
    db.project.findUnique({ where: { id: projectId }, select: { bayId: true } }),
  ]);
  if (!agent || !project) return false;
  return placementOf({ ownerId: agent.ownerId, homeBayId: agent.owner.bayId }, project.bayId, caller.id) === "visitor";
}

/**
 * DESIGN §4e: a terminal session joins rooms for itself (join_session); in a chat it is woken by its
 * person alone. Among `memberIds`, the sessions — each with its person; another's is refused
 * exactly as placing someone else's visitor is (403 not_sponsor).
 */
export async function ownSessionsAmong(db: Db | Tx, caller: Caller, memberIds: string[]): Promise<string[]> {
  const sessions = await db.agent.findMany({
    where: { id: { in: memberIds.filter((id) => id.startsWith("agt-")) }, kind: "session" },
    select: { id: true, ownerId: true },
  });
  if (sessions.some((s) => s.ownerId !== caller.id))
    throw HubError.forbidden("not_sponsor", "a terminal session joins rooms itself (join_session), or by its person");
  return sessions.map((s) => s.id);
}

/**
 * An agent enters the project by its own person's hand (a visitor's placement, a session's join):
 * active again unless the project's admins removed it (DELETE …/members) — then only they let it in
 * again (POST …/members). Sent home, or ended, it may come again.
 */
export async function admitMember(tx: Tx, projectId: string, agentId: string) {
  const before = await tx.membership.findUnique({
    where: { projectId_memberId: { projectId, memberId: agentId } },
    select: { status: true },
  });
  if (before && (before.status === "removed" || before.status === "isolated"))
    throw HubError.forbidden("removed_by_admin", "the project's admins removed this agent; an admin lets it in again");
  // A concurrent first admission makes one row (skipDuplicates), then both make it active.
  await tx.membership.createMany({
    data: [{ projectId, memberId: agentId, memberKind: "agent", permissions: [] }],
    skipDuplicates: true,
  });
  await tx.membership.updateMany({
    where: { projectId, memberId: agentId, status: { notIn: ["removed", "isolated"] } },
    data: { status: "active", endedAt: null },
  });
}

/** The first placement makes the visitor a member of the project (and its direct conversation there). */
export async function joinAsVisitor(tx: Tx, projectId: string, agentId: string) {
  await admitMember(tx, projectId, agentId);
  await ensureDirectConversation(tx, projectId, agentId);
}

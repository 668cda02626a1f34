import { GROUP_PARTICIPANTS_MAX, type GroupView, HubError, type participationSchema } from "@maity/domain";
import type { z } from "zod";
import type { Db, Tx } from "@maity/db";
import { logHead, takeAppendLock } from "../delivery/append.ts";
import type { BusMessage, LogEvent } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import { readKeys, readParticipants } from "../access/visibility.ts";
import { payloadView, renderView } from "./render.ts";

// A group chat's participations and the events that record their changes (§9.2 "Who takes part"):
// the view after a change, ending a participation (leave, removal, the operator's removal from the
// project), pins that go with it, and the conversation events every reader's log shows.

/** Who writes an event the hub makes on its own (a membership change by the operator). */
export const HUB_ACTOR = "hub";

export type Participation = z.infer<typeof participationSchema>;

export const renderParticipation = (p: {
  memberId: string;
  joinedAt: Date;
  leftAt: Date | null;
  leftReason: string | null;
}): Participation => ({
  member_id: p.memberId,
  joined_at: p.joinedAt.toISOString(),
  left_at: p.leftAt?.toISOString() ?? null,
  reason: p.leftReason as Participation["reason"],
});

/** The group chat view for `caller` (it must see the chat). */
export async function viewFor(tx: Db | Tx, caller: Caller, projectId: string, publicId: string): Promise<GroupView> {
  const [row] = await readKeys(tx, caller, { projectId, observed: true, conversationId: publicId });
  if (row?.kind !== "group") throw HubError.notFound("conversation not found");
  const participants = (await readParticipants(tx, [row.key])).get(row.key) ?? [];
  return renderView(row, participants, { id: caller.id });
}

/** §9.3: a conversation the caller leaves or loses access to keeps no pin — for every reader it lost. */
export async function prunePins(tx: Tx, conversationKeys: string[]): Promise<void> {
  if (conversationKeys.length === 0) return;
  await tx.$executeRawUnsafe(
    `DELETE FROM pins pn USING conversations c
     WHERE pn.conversation_id = c.id AND c.id = ANY($1::text[])
       AND NOT (
         (EXISTS (SELECT 1 FROM participations p WHERE p.conversation_id = c.id AND p.member_id = pn.human_id AND p.left_at IS NULL)
          AND EXISTS (SELECT 1 FROM memberships m WHERE m.project_id = c.project_id AND m.member_id = pn.human_id AND m.status = 'active')
          AND (c.kind = 'group' OR EXISTS (SELECT 1 FROM memberships am WHERE am.project_id = c.project_id AND am.member_id = c.agent_id AND am.status = 'active')))
         OR (c.kind = 'group' AND EXISTS (
           SELECT 1 FROM participations p JOIN agents a ON a.id = p.member_id
           WHERE p.conversation_id = c.id AND p.left_at IS NULL AND a.owner_id = pn.human_id))
       )`,
    conversationKeys,
  );
}

/** Appends conversation_updated (§8.2): the view at this moment and what changed. Wakes no agent (§9.2). */
export async function emitUpdated(
  tx: Tx,
  conversationKey: string,
  actorId: string,
  changed: Record<string, unknown>,
  alsoTo: string[] = [],
): Promise<BusMessage> {
  const head = await lockLog(tx);
  const c = await tx.conversation.findUniqueOrThrow({
    where: { id: conversationKey },
    select: { projectId: true, publicId: true },
  });
  const open = await tx.participation.findMany({
    where: { conversationId: conversationKey, leftAt: null },
    select: { memberId: true },
  });
  const audience = [...new Set([...open.map((p) => p.memberId), ...alsoTo])];
  return appendConversationEvent(tx, head, {
    kind: "conversation_updated",
    projectId: c.projectId,
    conversationKey,
    publicId: c.publicId,
    fromId: actorId,
    payload: { conversation: await payloadView(tx, conversationKey), changed },
    audience,
  });
}

/** Takes the append lock (append.ts) and answers where the log ends: a join's window starts there. */
export async function lockLog(tx: Tx): Promise<number> {
  await takeAppendLock(tx);
  return logHead(tx);
}

/** Appends a conversation_created / conversation_updated event (under the append lock) and its bus event. */
export async function appendConversationEvent(
  tx: Tx,
  head: number,
  e: {
    kind: string;
    projectId: string;
    conversationKey: string;
    publicId: string;
    fromId: string;
    payload: object;
    audience: string[];
  },
): Promise<LogEvent> {
  const event = await tx.event.create({
    data: {
      kind: e.kind,
      projectId: e.projectId,
      conversationId: e.conversationKey,
      fromId: e.fromId,
      toId: e.publicId,
      payload: e.payload,
      audience: { create: e.audience.map((memberId) => ({ memberId })) },
    },
    select: {
      seq: true,
      sentAt: true,
      conversation: { select: { project: { select: { slug: true, bay: { select: { handle: true } } } } } },
    },
  });
  return {
    type: "event",
    seq: event.seq,
    prev: head,
    kind: e.kind,
    sentAt: event.sentAt.toISOString(),
    conversationId: e.publicId,
    project: event.conversation
      ? { owner: event.conversation.project.bay.handle, slug: event.conversation.project.slug }
      : null,
    audience: e.audience,
  };
}

/**
 * Ends a member's stay in a group chat (leave, removal, membership ended). The last human out
 * closes the chat (§9.2 Closing: no_human, changed.closed); pins of readers who lost it go.
 */
export async function endParticipation(
  tx: Tx,
  conversationKey: string,
  memberId: string,
  reason: string,
  actorId: string,
): Promise<{ participation: Participation; bus: BusMessage } | null> {
  // The append lock before the participation's row: a chat write holds the lock and then updates
  // every participation of the chat (its counters), so the other order could deadlock.
  await takeAppendLock(tx);
  const open = await tx.participation.findFirst({
    where: { conversationId: conversationKey, memberId, leftAt: null },
    select: { id: true },
  });
  if (!open) return null;
  const ended = await tx.participation.update({
    where: { id: open.id },
    data: { leftAt: new Date(), leftReason: reason },
    select: { memberId: true, joinedAt: true, leftAt: true, leftReason: true },
  });
  const changed: Record<string, unknown> = { participants: { removed: [memberId] } };
  const humansLeft = await tx.participation.count({
    where: { conversationId: conversationKey, leftAt: null, memberKind: "human" },
  });
  if (humansLeft === 0) {
    const closed = await tx.conversation.updateMany({
      where: { id: conversationKey, closedAt: null },
      data: { closedAt: new Date(), closedReason: "no_human" },
    });
    if (closed.count > 0) changed.closed = true;
  }
  // The one who leaves keeps no pin, even while it still reads along through its agent (§9.3).
  await tx.pin.deleteMany({ where: { conversationId: conversationKey, humanId: memberId } });
  await prunePins(tx, [conversationKey]);
  const bus = await emitUpdated(tx, conversationKey, actorId, changed, [memberId]);
  return { participation: renderParticipation(ended), bus };
}

/**
 * A member of the project enters a group chat (§9.2 "Who takes part"): a participation whose window
 * starts at the log's head, and conversation_updated for the room. Null when it is in already.
 * `placed` sets a visitor's floor and wake (DESIGN §4c) or a session's wake (§4e); `uncapped` lifts the
 * §9.2 cap of 12 for the Bay's shared Sessions group.
 */
export async function enterGroup(
  tx: Tx,
  room: { key: string; projectId: string; createdAt: Date },
  memberId: string,
  actorId: string,
  placed: { historyFloor?: "head" | 0; wake?: string; uncapped?: boolean } = {},
): Promise<BusMessage | null> {
  const already = await tx.participation.findFirst({
    where: { conversationId: room.key, memberId, leftAt: null },
    select: { id: true },
  });
  if (already) return null;
  const member = await tx.membership.findFirst({
    where: { projectId: room.projectId, memberId, status: "active" },
    select: { memberKind: true },
  });
  if (!member) throw HubError.invalid({ member_id: "not_a_member" }, "only active members of the project take part");
  const count = await tx.participation.count({ where: { conversationId: room.key, leftAt: null } });
  // The Bay's shared Sessions group (DESIGN §4e) holds every session of its people: no §9.2 cap.
  if (!placed.uncapped && count >= GROUP_PARTICIPANTS_MAX)
    throw HubError.invalid(
      { member_id: "too_many" },
      `a group chat has at most ${GROUP_PARTICIPANTS_MAX} participants`,
    );
  // The window starts here: nothing said before wakes or counts for the newcomer (§9.2).
  const last = await lockLog(tx);
  await tx.participation.create({
    data: {
      conversationId: room.key,
      memberId,
      memberKind: member.memberKind,
      joinedSeq: last,
      readMarkerSeq: last,
      // Nothing said before the join is in the window: the chat's created_at (§9.3 activity, M-227).
      activityAt: room.createdAt,
      projectId: room.projectId,
      ...(placed.historyFloor === undefined ? {} : { historyFloor: placed.historyFloor === 0 ? 0 : last }),
      ...(placed.wake === undefined ? {} : { wake: placed.wake }),
    },
  });
  return emitUpdated(tx, room.key, actorId, { participants: { added: [memberId] } });
}

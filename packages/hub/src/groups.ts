import { createHash } from "node:crypto";
import { agentName, checkGroupParticipants, createGroupInput, groupConversationId, HubError, parseInput, projectRef } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import { findProject } from "./admin.ts";
import type { LiveBus } from "./bus.ts";
import type { Caller } from "./caller.ts";

/** §1.7 open group chats per project (documented default; MAITY_GROUP_CHAT_QUOTA overrides). */
export const DEFAULT_GROUP_CHAT_QUOTA = 100;

export type GroupView = {
  id: string;
  kind: "group";
  title: string | null;
  created_by: string;
  created_at: string;
  participants: {
    member_id: string;
    kind: "human" | "agent";
    handle: string;
    name?: string;
    owner_id: string | null;
    joined_at: string;
  }[];
  observers: string[];
  closed_at: string | null;
  closed_reason: string | null;
  access: "participant" | "observer";
  pinned: boolean;
};

/** The §9.2 conversation view of a group chat, as `caller` sees it. */
export async function renderGroupView(tx: Tx | Db, conversationId: string, caller: Caller): Promise<GroupView> {
  const c = await tx.conversation.findUniqueOrThrow({
    where: { id: conversationId },
    select: {
      publicId: true,
      title: true,
      createdById: true,
      createdAt: true,
      closedAt: true,
      closedReason: true,
      participations: { where: { leftAt: null }, orderBy: [{ joinedAt: "asc" }, { id: "asc" }], select: { memberId: true, memberKind: true, joinedAt: true } },
    },
  });
  const ids = c.participations.map((p) => p.memberId);
  const [humans, agents] = await Promise.all([
    tx.human.findMany({ where: { id: { in: ids } }, select: { id: true, handle: true } }),
    tx.agent.findMany({ where: { id: { in: ids } }, select: { id: true, handle: true, ownerId: true, owner: { select: { handle: true } } } }),
  ]);
  const participants = c.participations.map((p) => {
    const agent = agents.find((a) => a.id === p.memberId);
    if (agent)
      return { member_id: p.memberId, kind: "agent" as const, handle: agent.handle, name: agentName(agent.owner.handle, agent.handle), owner_id: agent.ownerId, joined_at: p.joinedAt.toISOString() };
    const human = humans.find((h) => h.id === p.memberId);
    return { member_id: p.memberId, kind: "human" as const, handle: human?.handle ?? p.memberId, owner_id: null, joined_at: p.joinedAt.toISOString() };
  });
  // Observers: owners of agent participants who are not participants themselves (§9.2).
  const observers = [...new Set(agents.map((a) => a.ownerId))].filter((id) => !ids.includes(id)).sort();
  const pinned = caller.kind === "human" ? (await tx.pin.count({ where: { humanId: caller.id, conversationId } })) > 0 : false;
  return {
    id: c.publicId,
    kind: "group",
    title: c.title,
    created_by: c.createdById ?? "",
    created_at: c.createdAt.toISOString(),
    participants,
    observers,
    closed_at: c.closedAt?.toISOString() ?? null,
    closed_reason: c.closedReason,
    access: ids.includes(caller.id) ? "participant" : "observer",
    pinned,
  };
}

export function groupService(db: Db, bus: LiveBus, options: { quota?: number } = {}) {
  const quota = options.quota ?? (Number(process.env.MAITY_GROUP_CHAT_QUOTA) || DEFAULT_GROUP_CHAT_QUOTA);
  return {
    /** The group chat's view for a participant, or an owner reading along (§9.2); otherwise not_found. */
    async get(caller: Caller, ref: unknown, conversationId: string): Promise<GroupView> {
      const { owner, slug } = parseInput(projectRef, ref);
      const project = await findProject(db, owner, slug);
      if (!project) throw HubError.notFound("conversation not found");
      const conversation = await db.conversation.findUnique({
        where: { projectId_publicId: { projectId: project.id, publicId: conversationId } },
        select: { id: true, kind: true },
      });
      if (conversation?.kind !== "group") throw HubError.notFound("conversation not found");
      const view = await renderGroupView(db, conversation.id, caller);
      const member = await db.membership.findFirst({ where: { projectId: project.id, memberId: caller.id, status: "active" }, select: { id: true } });
      const participant = member && view.access === "participant";
      const observer = caller.kind === "human" && view.observers.includes(caller.id);
      if (!participant && !observer) throw HubError.notFound("conversation not found");
      return view;
    },

    /** §9.2 create: humans only, 2–12 participants with the creator, idempotent by key. */
    async create(caller: Caller, ref: unknown, input: unknown, idempotencyKey?: string | null): Promise<{ status: 200 | 201; view: GroupView }> {
      const { owner, slug } = parseInput(projectRef, ref);
      const project = await findProject(db, owner, slug);
      const membership = project && (await db.membership.findFirst({ where: { projectId: project.id, memberId: caller.id, status: "active" }, select: { id: true } }));
      if (!project || !membership) throw HubError.notFound("project not found");
      if (caller.kind !== "human") throw HubError.forbidden("humans_only");
      const data = parseInput(createGroupInput, input);
      if (idempotencyKey !== undefined && idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 200))
        throw HubError.invalid({ idempotency_key: "1–200 characters" });
      const requestHash = createHash("sha256").update(JSON.stringify([project.id, data.title ?? null, data.participants])).digest("hex");
      if (idempotencyKey) {
        const seen = await db.idempotencyKey.findUnique({ where: { callerId_key: { callerId: caller.id, key: idempotencyKey } }, select: { requestHash: true, response: true } });
        if (seen) {
          if (seen.requestHash !== requestHash) throw HubError.invalid({ idempotency_key: "reused_with_other_body" });
          return { status: 200, view: await renderGroupView(db, (seen.response as { conversation: string }).conversation, caller) };
        }
      }
      if (project.archivedAt) throw new HubError("project_closed", "the project is archived");
      const result = await db.$transaction(async (tx) => {
        const rows = await tx.membership.findMany({ where: { projectId: project.id, status: "active" }, select: { memberId: true, memberKind: true } });
        const agentOwners = await tx.agent.findMany({ where: { id: { in: rows.filter((r) => r.memberKind === "agent").map((r) => r.memberId) } }, select: { id: true, ownerId: true } });
        const members = new Map(rows.map((r) => [r.memberId, { kind: r.memberKind as "human" | "agent", ownerId: agentOwners.find((a) => a.id === r.memberId)?.ownerId ?? null }]));
        const verdict = checkGroupParticipants({ creatorId: caller.id, requested: data.participants, members });
        if (!verdict.ok) throw HubError.invalid({ participants: verdict.reason });
        const open = await tx.conversation.count({ where: { projectId: project.id, kind: "group", closedAt: null } });
        if (open >= quota) throw new HubError("conversation_quota", `the project has ${open} open group chats, the most allowed`, { limit: quota });
        const created = await tx.conversation.create({
          data: { projectId: project.id, publicId: `pending-${requestHash}`, kind: "group", title: data.title || null, createdById: caller.id },
          select: { id: true, number: true },
        });
        const publicId = groupConversationId(created.number);
        await tx.conversation.update({ where: { id: created.id }, data: { publicId } });
        const last = (await tx.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
        const now = new Date();
        await tx.participation.createMany({
          data: verdict.members.map((memberId) => ({ conversationId: created.id, memberId, memberKind: members.get(memberId)?.kind ?? "human", joinedAt: now, joinedSeq: last, readMarkerSeq: last })),
        });
        const view = await renderGroupView(tx, created.id, caller);
        // conversation_created wakes no agent (§9.2 Wake): no routing verdicts.
        const event = await tx.event.create({
          data: {
            kind: "conversation_created",
            projectId: project.id,
            conversationId: created.id,
            fromId: caller.id,
            toId: publicId,
            payload: { conversation: { ...view, pinned: undefined, access: undefined } },
            audience: { create: verdict.members.map((memberId) => ({ memberId })) },
          },
          select: { seq: true },
        });
        if (idempotencyKey) await tx.idempotencyKey.create({ data: { callerId: caller.id, key: idempotencyKey, requestHash, response: { conversation: created.id } } });
        return { view, seq: event.seq, audience: verdict.members, publicId };
      });
      bus.publish({ type: "event", seq: result.seq, conversationId: result.publicId, audience: result.audience });
      return { status: 201, view: result.view };
    },
  };
}
export type GroupService = ReturnType<typeof groupService>;

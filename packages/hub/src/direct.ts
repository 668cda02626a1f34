import { agentName, cutPreview, eventId, HubError, isHubError, listMessagesQuery, type DirectItem, type Message, parseInput, postMessageInput, projectRef } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { LiveBus } from "./bus.ts";
import type { Caller } from "./caller.ts";
import { findProject, renderProject } from "./admin.ts";

/** §9.1: a direct conversation exists while the agent is a member; its id is the agent's member id. */
export async function ensureDirectConversation(tx: Tx, projectId: string, agentId: string): Promise<void> {
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
    const open = await tx.participation.findFirst({ where: { conversationId: conversation.id, memberId, leftAt: null }, select: { id: true } });
    if (!open) {
      const last = await tx.event.aggregate({ _max: { seq: true } });
      await tx.participation.create({
        data: { conversationId: conversation.id, memberId, memberKind, joinedSeq: 0, readMarkerSeq: existing ? (last._max.seq ?? 0) : 0 },
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

const messageSelect = {
  seq: true,
  fromId: true,
  toId: true,
  fromInstanceId: true,
  toInstanceId: true,
  body: true,
  mentions: true,
  sentAt: true,
  deliveredAt: true,
  redacted: true,
  redaction: { select: { at: true, byId: true, reason: true } },
  conversation: { select: { publicId: true } },
} as const;
type MessageRow = {
  seq: number;
  fromId: string;
  toId: string | null;
  fromInstanceId: string | null;
  toInstanceId: string | null;
  body: string | null;
  mentions: unknown;
  sentAt: Date;
  deliveredAt: Date | null;
  redacted: boolean;
  redaction: { at: Date; byId: string; reason: string | null } | null;
  conversation: { publicId: string } | null;
};

export function renderMessage(row: MessageRow): Message {
  const redacted = row.redacted;
  return {
    id: eventId(row.seq),
    seq: row.seq,
    conversation_id: row.conversation?.publicId ?? "",
    from: row.fromId,
    to: row.toId ?? "",
    body: redacted ? null : row.body,
    sent_at: row.sentAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    mentions: redacted ? [] : (row.mentions as Message["mentions"]),
    attachments: [],
    from_instance: row.fromInstanceId,
    to_instance: row.toInstanceId,
    redacted,
    redaction: row.redaction ? { at: row.redaction.at.toISOString(), by: row.redaction.byId, reason: row.redaction.reason } : null,
  };
}

type DirectRow = {
  id: string;
  publicId: string;
  agentId: string;
  ownerId: string;
  ownerHandle: string;
  agentHandle: string;
  readMarkerSeq: number;
};

/** Conversations of one project, as the caller may read them (direct ones, §9.1). */
export function directService(db: Db, bus: LiveBus) {
  async function projectFor(caller: Caller, ref: unknown) {
    const { owner, slug } = parseInput(projectRef, ref);
    const project = await findProject(db, owner, slug);
    if (!project) throw HubError.notFound("project not found");
    const membership = await db.membership.findFirst({ where: { projectId: project.id, memberId: caller.id, status: "active" }, select: { id: true } });
    if (!membership) throw HubError.notFound("project not found");
    return project;
  }

  /** The direct conversation the caller is a party of, or not_found (hidden answers like missing). */
  async function directFor(caller: Caller, projectId: string, conversationId: string): Promise<DirectRow> {
    const conversation = await db.conversation.findUnique({
      where: { projectId_publicId: { projectId, publicId: conversationId } },
      select: { id: true, publicId: true, kind: true, agentId: true },
    });
    if (conversation?.kind !== "direct" || !conversation.agentId) throw HubError.notFound("conversation not found");
    const agent = await db.agent.findUniqueOrThrow({
      where: { id: conversation.agentId },
      select: { handle: true, owner: { select: { id: true, handle: true } } },
    });
    const participation = await db.participation.findFirst({
      where: { conversationId: conversation.id, memberId: caller.id, leftAt: null },
      select: { readMarkerSeq: true },
    });
    const membership = await db.membership.findFirst({ where: { projectId, memberId: conversation.agentId, status: "active" }, select: { id: true } });
    if (!participation || !membership) throw HubError.notFound("conversation not found");
    return {
      id: conversation.id,
      publicId: conversation.publicId,
      agentId: conversation.agentId,
      ownerId: agent.owner.id,
      ownerHandle: agent.owner.handle,
      agentHandle: agent.handle,
      readMarkerSeq: participation.readMarkerSeq,
    };
  }

  async function renderItem(caller: Caller, row: DirectRow): Promise<DirectItem> {
    const last = await db.event.findFirst({
      where: { conversationId: row.id, kind: "message" },
      orderBy: { seq: "desc" },
      select: { seq: true, fromId: true, body: true, sentAt: true, redacted: true },
    });
    const unread =
      caller.kind === "human"
        ? await db.event.count({ where: { conversationId: row.id, kind: "message", fromId: { not: caller.id }, seq: { gt: row.readMarkerSeq } } })
        : 0;
    const pinned = caller.kind === "human" ? (await db.pin.count({ where: { humanId: caller.id, conversationId: row.id } })) > 0 : false;
    return {
      id: row.publicId,
      kind: "direct",
      agent_id: row.agentId,
      title: null,
      participants: [
        { member_id: row.ownerId, kind: "human", handle: row.ownerHandle },
        { member_id: row.agentId, kind: "agent", handle: row.agentHandle, name: agentName(row.ownerHandle, row.agentHandle) },
      ],
      access: "party",
      closed_at: null,
      last_message_at: last?.sentAt.toISOString() ?? null,
      unread,
      mentions_unread: 0,
      pinned,
      last_message: last
        ? { seq: last.seq, from: last.fromId, body: last.redacted || last.body === null ? null : cutPreview(last.body), sent_at: last.sentAt.toISOString(), redacted: last.redacted }
        : null,
    };
  }

  return {
    /** The projects where the caller is an active member. */
    async projects(caller: Caller) {
      const rows = await db.project.findMany({
        where: { memberships: { some: { memberId: caller.id, status: "active" } } },
        select: { id: true, slug: true, name: true, archivedAt: true, bay: { select: { handle: true } } },
        orderBy: [{ bay: { handle: "asc" } }, { slug: "asc" }],
      });
      return rows.map(renderProject);
    },

    async listDirect(caller: Caller, ref: unknown): Promise<DirectItem[]> {
      const project = await projectFor(caller, ref);
      const conversations = await db.conversation.findMany({
        where: { projectId: project.id, kind: "direct", participations: { some: { memberId: caller.id, leftAt: null } } },
        select: { publicId: true },
      });
      const items: DirectItem[] = [];
      for (const c of conversations) {
        try {
          items.push(await renderItem(caller, await directFor(caller, project.id, c.publicId)));
        } catch (error) {
          if (!isHubError(error)) throw error;
        }
      }
      return items.sort((a, b) => (b.last_message_at ?? "").localeCompare(a.last_message_at ?? "") || a.id.localeCompare(b.id));
    },

    async getDirect(caller: Caller, ref: unknown, conversationId: string): Promise<DirectItem> {
      const project = await projectFor(caller, ref);
      return renderItem(caller, await directFor(caller, project.id, conversationId));
    },

    /** §9.1 post: a human party or the agent writes; the audience is the two parties. */
    async post(caller: Caller, ref: unknown, conversationId: string, input: unknown): Promise<Message> {
      const project = await projectFor(caller, ref);
      const data = parseInput(postMessageInput, input);
      const row = await directFor(caller, project.id, conversationId);
      const toId = caller.id === row.agentId ? row.ownerId : row.agentId;
      const toInstance = caller.kind === "human" ? (data.to_instance ?? null) : null;
      const message = await db.$transaction(async (tx) => {
        const event = await tx.event.create({
          data: {
            kind: "message",
            type: "chat",
            projectId: project.id,
            conversationId: row.id,
            fromId: caller.id,
            fromInstanceId: caller.kind === "agent" ? caller.instanceId : null,
            toId,
            toInstanceId: toInstance,
            body: data.body,
            mentions: [], // §9.1: a @handle in a direct conversation is plain text.
            audience: { create: [{ memberId: row.ownerId }, { memberId: row.agentId }] },
            // Direct conversations: every human message wakes the agent (DESIGN.md §1).
            verdicts: caller.kind === "human" ? { create: [{ agentId: row.agentId, instanceId: toInstance, shouldRespond: true, reason: "direct" }] } : undefined,
          },
          select: messageSelect,
        });
        await tx.conversation.update({ where: { id: row.id }, data: { lastSeq: event.seq, lastMessageAt: event.sentAt } });
        // Whoever speaks has read up to there (§9.2, read markers).
        await tx.participation.updateMany({ where: { conversationId: row.id, memberId: caller.id, leftAt: null }, data: { readMarkerSeq: event.seq } });
        return event;
      });
      bus.publish({ type: "event", seq: message.seq, conversationId: row.publicId, audience: [row.ownerId, row.agentId] });
      return renderMessage(message);
    },

    /** §9.1 read: marks read up to the highest seq returned and sets delivered_at once for the recipient. */
    async messages(caller: Caller, ref: unknown, conversationId: string, query: unknown) {
      const project = await projectFor(caller, ref);
      const q = parseInput(listMessagesQuery, query);
      if (q.after !== undefined && q.before !== undefined) throw HubError.invalid({ before: "not_with_after" });
      const row = await directFor(caller, project.id, conversationId);
      if (q.before !== undefined) {
        const rows = await db.event.findMany({
          where: { conversationId: row.id, kind: "message", seq: { lt: q.before } },
          orderBy: { seq: "desc" },
          take: q.limit + 1,
          select: messageSelect,
        });
        const page = rows.slice(0, q.limit).reverse();
        return { items: page.map(renderMessage), earlier: rows.length > q.limit ? (page[0]?.seq ?? null) : null };
      }
      const rows = await db.event.findMany({
        where: { conversationId: row.id, kind: "message", seq: { gt: q.after ?? 0 } },
        orderBy: { seq: "asc" },
        take: q.limit + 1,
        select: messageSelect,
      });
      const page = rows.slice(0, q.limit);
      const now = new Date();
      const undelivered = page.filter((m) => m.toId === caller.id && m.deliveredAt === null).map((m) => m.seq);
      const highest = page.at(-1)?.seq ?? 0;
      await db.$transaction(async (tx) => {
        if (undelivered.length) await tx.event.updateMany({ where: { seq: { in: undelivered }, deliveredAt: null }, data: { deliveredAt: now } });
        if (highest > row.readMarkerSeq)
          await tx.participation.updateMany({ where: { conversationId: row.id, memberId: caller.id, leftAt: null, readMarkerSeq: { lt: highest } }, data: { readMarkerSeq: highest } });
      });
      for (const m of page) if (undelivered.includes(m.seq)) m.deliveredAt = now;
      return { items: page.map(renderMessage), next_cursor: rows.length > q.limit ? String(highest) : null };
    },
  };
}
export type DirectService = ReturnType<typeof directService>;

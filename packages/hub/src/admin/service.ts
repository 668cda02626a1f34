import type { z } from "zod";
import {
  type addMemberInput,
  agentIdCandidates,
  agentName,
  type createAgentInput,
  type createHumanAdminInput,
  type createProjectInput,
  HubError,
  humanId,
  memberKindOf,
  type mintTokenInput,
  type ProjectRef,
  type removeMemberReason,
  type revokeTokenInput,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import { hashPassword, mintSecret, sha256 } from "../auth/credentials.ts";
import { findProject, renderProject } from "../access/projects.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { closeDirectFor, ensureDirectConversation } from "../conversations/direct.ts";
import { endParticipation, HUB_ACTOR, prunePins } from "../conversations/participation.ts";

const isUniqueViolation = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";

const taken = (field: string): HubError =>
  new HubError("conflict", `${field} already taken`, { fields: { [field]: "taken" } });

/** A person's own Bay, named after its handle (the handle is then taken for Bays too). */
async function ownBay(tx: Tx, handle: string): Promise<string> {
  const bay = await tx.bay.findUnique({ where: { handle }, select: { id: true } });
  if (bay) throw taken("handle");
  return (await tx.bay.create({ data: { id: `bay-${handle}`, handle }, select: { id: true } })).id;
}

/** A Bay shared by several people (the operator's choice): joined, or opened when new. */
async function teamBay(tx: Tx, handle: string): Promise<string> {
  const bay = await tx.bay.findUnique({ where: { handle }, select: { id: true } });
  if (bay) return bay.id;
  return (await tx.bay.create({ data: { id: `bay-${handle}`, handle }, select: { id: true } })).id;
}

/** Operator commands: the same service behind `pnpm maity admin …` and /api/admin/*. */
export function adminService(db: Db, bus: LiveBus) {
  return {
    async createHuman(data: z.output<typeof createHumanAdminInput>) {
      const passwordHash = await hashPassword(data.password);
      const id = humanId(data.handle);
      try {
        return await db.$transaction(async (tx) => {
          const bayId = data.bay ? await teamBay(tx, data.bay) : await ownBay(tx, data.handle);
          const human = await tx.human.create({
            data: { id, handle: data.handle, displayName: data.name, passwordHash, bayId },
            select: { id: true, handle: true, displayName: true },
          });
          return { id: human.id, handle: human.handle, name: human.displayName };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken("handle");
        throw error;
      }
    },

    async createAgent(data: z.output<typeof createAgentInput>) {
      return db.$transaction(async (tx) => {
        const owner = await tx.human.findUnique({ where: { handle: data.owner }, select: { id: true, handle: true } });
        if (!owner) throw HubError.invalid({ owner: "not_found" });
        const existing = await tx.agent.findUnique({
          where: { ownerId_handle: { ownerId: owner.id, handle: data.handle } },
          select: { id: true },
        });
        if (existing) throw taken("handle");
        const candidates = agentIdCandidates(owner.handle, data.handle);
        let id: string | undefined;
        for (const candidate of [...candidates, ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${candidates[1]}-${n}`)]) {
          if (!(await tx.agent.findUnique({ where: { id: candidate }, select: { id: true } }))) {
            id = candidate;
            break;
          }
        }
        if (!id) throw taken("handle");
        const agent = await tx.agent.create({
          data: { id, ownerId: owner.id, handle: data.handle, description: data.description ?? "" },
          select: { id: true, handle: true, ownerId: true, description: true },
        });
        await tx.agentInstance.create({ data: { id: `${id}-default`, agentId: id, isDefault: true } });
        return {
          id: agent.id,
          handle: agent.handle,
          name: agentName(owner.handle, agent.handle),
          owner_id: agent.ownerId,
          description: agent.description,
        };
      });
    },

    async createProject(data: z.output<typeof createProjectInput>) {
      try {
        return await db.$transaction(async (tx) => {
          const owner = await tx.human.findUnique({ where: { handle: data.owner }, select: { id: true, bayId: true } });
          if (!owner) throw HubError.invalid({ owner: "not_found" });
          if (await findProject(tx, data.owner, data.slug)) throw taken("slug");
          const project = await tx.project.create({
            data: { id: `prj-${data.owner}-${data.slug}`, bayId: owner.bayId, slug: data.slug, name: data.name },
            select: { id: true, slug: true, name: true, archivedAt: true, bay: { select: { handle: true } } },
          });
          await tx.membership.create({
            data: { projectId: project.id, memberId: owner.id, memberKind: "human", permissions: ["members:admin"] },
          });
          const { archived: _archived, ...view } = renderProject(project);
          return view;
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken("slug");
        throw error;
      }
    },

    async addMember(ref: ProjectRef, data: z.output<typeof addMemberInput>) {
      const { owner, slug } = ref;
      return db.$transaction(async (tx) => {
        const project = await findProject(tx, owner, slug);
        if (!project) throw HubError.notFound("project not found");
        if (project.archivedAt) throw new HubError("project_closed", "the project is archived");
        const kind = memberKindOf(data.member_id);
        const exists =
          kind === "human"
            ? await tx.human.findUnique({ where: { id: data.member_id }, select: { id: true } })
            : await tx.agent.findUnique({ where: { id: data.member_id }, select: { id: true } });
        if (!kind || !exists) throw HubError.invalid({ member_id: "not_found" });
        const permissions = data.permissions ?? [];
        const membership = await tx.membership.upsert({
          where: { projectId_memberId: { projectId: project.id, memberId: data.member_id } },
          create: { projectId: project.id, memberId: data.member_id, memberKind: kind, permissions },
          update: { status: "active", endedAt: null, permissions },
          select: { memberId: true, permissions: true, status: true },
        });
        if (kind === "agent") await ensureDirectConversation(tx, project.id, data.member_id);
        return { member_id: membership.memberId, permissions: membership.permissions, status: "active" as const };
      });
    },

    async removeMember(ref: ProjectRef, memberId: string, reason?: z.output<typeof removeMemberReason> | null) {
      const { owner, slug } = ref;
      const why = reason ?? "removed";
      const result = await db.$transaction(async (tx) => {
        const project = await findProject(tx, owner, slug);
        if (!project) throw HubError.notFound("project not found");
        const membership = await tx.membership.findUnique({
          where: { projectId_memberId: { projectId: project.id, memberId } },
          select: { id: true, status: true, memberKind: true },
        });
        if (!membership) throw HubError.notFound("member not found");
        const status = why === "isolated" ? ("isolated" as const) : ("removed" as const);
        await tx.membership.update({ where: { id: membership.id }, data: { status, endedAt: new Date() } });
        // §9.2: leaving the project leaves every chat with that reason (the last human out closes it).
        const chats = await tx.participation.findMany({
          where: { memberId, leftAt: null, conversation: { projectId: project.id, kind: "group" } },
          select: { conversationId: true },
        });
        const messages = [];
        for (const chat of chats) {
          const ended = await endParticipation(tx, chat.conversationId, memberId, `membership_${status}`, HUB_ACTOR);
          if (ended) messages.push(ended.bus);
        }
        if (membership.memberKind === "agent") await closeDirectFor(tx, project.id, memberId);
        const conversations = await tx.conversation.findMany({
          where: { projectId: project.id },
          select: { id: true },
        });
        await prunePins(
          tx,
          conversations.map((c) => c.id),
        );
        return { view: { member_id: memberId, status }, messages, human: membership.memberKind === "human" };
      });
      for (const message of result.messages) bus.publish(message);
      // B-324: a device credential opens a Bay only while its person belongs there — the cached
      // device callers and their sessions' streams re-check now, not in an hour.
      if (result.human) bus.publish({ type: "credentials", humanId: memberId });
      return result.view;
    },

    async archiveProject(ref: ProjectRef) {
      const project = await findProject(db, ref.owner, ref.slug);
      if (!project) throw HubError.notFound("project not found");
      const updated = await db.project.update({
        where: { id: project.id },
        data: { archivedAt: project.archivedAt ?? new Date() },
        select: { id: true, slug: true, name: true, archivedAt: true, bay: { select: { handle: true } } },
      });
      return renderProject(updated);
    },

    /** Revokes a token given its plaintext; afterwards it answers 401 like one that never existed. */
    async revokeToken({ token }: z.output<typeof revokeTokenInput>) {
      const owner = { agentId: true, humanId: true } as const;
      const row = await db.accessToken.findUnique({ where: { hash: sha256(token) }, select: owner });
      const result = await db.accessToken.updateMany({
        where: { hash: sha256(token), revokedAt: null },
        data: { revokedAt: new Date() },
      });
      // An agent's open /ws sockets re-check their credential and close with 4001 (004 §11); held
      // /updates and live streams of the token's member end too (B-156: a revoked credential keeps nothing open).
      if (result.count > 0 && row?.agentId) bus.publish({ type: "credentials", agentId: row.agentId });
      if (result.count > 0 && row?.humanId) bus.publish({ type: "credentials", humanId: row.humanId });
      return { revoked: result.count > 0 };
    },

    /** Mints a token for a human (mty_…) or an agent (bay_…): shown once, stored as SHA-256. */
    async mintToken(data: z.output<typeof mintTokenInput>) {
      const kind = memberKindOf(data.member_id);
      if (kind === "human") {
        const human = await db.human.findUnique({ where: { id: data.member_id }, select: { id: true } });
        if (!human) throw HubError.invalid({ member_id: "not_found" });
      } else {
        const agent = await db.agent.findUnique({ where: { id: data.member_id }, select: { id: true } });
        if (!agent) throw HubError.invalid({ member_id: "not_found" });
      }
      const { secret, hash } = mintSecret(kind === "human" ? "human" : "agent");
      await db.accessToken.create({
        data: {
          kind: kind === "human" ? "human" : "agent",
          hash,
          humanId: kind === "human" ? data.member_id : null,
          agentId: kind === "agent" ? data.member_id : null,
          label: data.label ?? null,
        },
      });
      return {
        token: secret,
        member_id: data.member_id,
        kind: kind === "human" ? ("human" as const) : ("agent" as const),
      };
    },
  };
}
export type AdminService = ReturnType<typeof adminService>;

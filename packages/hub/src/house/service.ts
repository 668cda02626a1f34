import {
  type agentCreateFields,
  type agentPatchFields,
  agentName,
  HubError,
  isHubError,
  type MemberEntry,
  type memberAddFields,
  type ProjectRef,
  type projectCreateInput,
  type projectPatchFields,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { z } from "zod";
import type { Caller, HumanCaller } from "../access/caller.ts";
import { renderProject } from "../access/projects.ts";
import { adminProject as adminProjectOf, memberProject } from "../access/resolve.ts";
import type { adminService } from "../admin/service.ts";

// People run their own house (DESIGN §4c): a project in their own Bay, its members, their own
// agents. Each operation checks who may do it and hands the change to the operator's service
// (admin/service.ts), so `/api/admin/*` and the people's routes write alike. An outsider meets
// every project as missing (§9.2 M-146: hidden = missing); a member who may not change it, 403.

type Admin = ReturnType<typeof adminService>;

export function houseService(db: Db, admin: Admin) {
  const adminProject = (caller: HumanCaller, ref: ProjectRef, what: string) => adminProjectOf(db, caller, ref, what);

  /** The agent when `caller` owns it; anyone else's (or none) answers not_found. */
  async function ownAgent(caller: HumanCaller, agentId: string) {
    const agent = await db.agent.findFirst({
      where: { id: agentId, ownerId: caller.id, kind: "agent" },
      select: { id: true, handle: true, ownerId: true, description: true },
    });
    if (!agent) throw HubError.notFound("agent not found");
    return agent;
  }

  return {
    /** POST /api/projects: in the caller's Bay (its handle), the caller its first members:admin. */
    async createProject(caller: HumanCaller, input: z.output<typeof projectCreateInput>) {
      try {
        const made = await admin.createProject({ owner: caller.handle, slug: input.slug, name: input.name });
        return { ...made, archived: false };
      } catch (error) {
        // DESIGN §4c: a slug the Bay already has is the input's fault, named.
        if (isHubError(error) && error.details.fields?.slug === "taken")
          throw HubError.invalid({ slug: "taken" }, "this Bay already has a project with that slug");
        throw error;
      }
    },

    /** GET /api/projects/{owner}/{slug}: the project as its members see it, its sharing with visitors too. */
    async project(caller: Caller, ref: ProjectRef) {
      const { id } = await memberProject(db, caller, ref);
      const p = await db.project.findUniqueOrThrow({
        where: { id },
        select: {
          id: true,
          slug: true,
          name: true,
          archivedAt: true,
          shareWithVisitors: true,
          bay: { select: { handle: true } },
        },
      });
      return { ...renderProject(p), share_with_visitors: p.shareWithVisitors };
    },

    /** PATCH /api/projects/{owner}/{slug}: the name and the sharing with visitors (members:admin). */
    async updateProject(caller: HumanCaller, ref: ProjectRef, input: z.output<typeof projectPatchFields>) {
      const project = await adminProject(caller, ref, "renames it or shares it with visitors");
      // A rename never changes the brief's version (004 v1.15 B-262): only the name is written.
      const updated = await db.project.update({
        where: { id: project.id },
        data: {
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.share_with_visitors === undefined ? {} : { shareWithVisitors: input.share_with_visitors }),
        },
        select: {
          id: true,
          slug: true,
          name: true,
          archivedAt: true,
          shareWithVisitors: true,
          bay: { select: { handle: true } },
        },
      });
      return { ...renderProject(updated), share_with_visitors: updated.shareWithVisitors };
    },

    /** GET …/members: the project's active members, for any member (visitors marked). */
    async members(caller: Caller, ref: ProjectRef): Promise<MemberEntry[]> {
      const project = await memberProject(db, caller, ref);
      const rows = await db.membership.findMany({
        where: { projectId: project.id, status: "active" },
        select: { memberId: true, memberKind: true, permissions: true, status: true },
        orderBy: { joinedAt: "asc" },
      });
      const ids = rows.map((r) => r.memberId);
      const [humans, agents] = await Promise.all([
        db.human.findMany({ where: { id: { in: ids } }, select: { id: true, handle: true, displayName: true } }),
        db.agent.findMany({
          where: { id: { in: ids } },
          select: {
            id: true,
            handle: true,
            ownerId: true,
            owner: { select: { handle: true, displayName: true, bayId: true, bay: { select: { handle: true } } } },
          },
        }),
      ]);
      const humanOf = new Map(humans.map((h) => [h.id, h]));
      const agentOf = new Map(agents.map((a) => [a.id, a]));
      return rows.flatMap((r): MemberEntry[] => {
        const status = r.status as MemberEntry["status"];
        const human = humanOf.get(r.memberId);
        if (human)
          return [
            {
              member_id: r.memberId,
              kind: "human",
              name: human.displayName,
              handle: human.handle,
              owner_id: null,
              permissions: r.permissions,
              status,
              visiting: null,
            },
          ];
        const agent = agentOf.get(r.memberId);
        if (!agent) return [];
        // v1.14: an agent whose owner's Bay is not the project's is visiting; its sponsor brought it.
        const visiting =
          agent.owner.bayId === project.bayId
            ? null
            : {
                home_bay: agent.owner.bay.handle,
                sponsor: { id: agent.ownerId, name: agent.owner.displayName },
              };
        return [
          {
            member_id: r.memberId,
            kind: "agent",
            name: agentName(agent.owner.handle, agent.handle),
            handle: agent.handle,
            owner_id: agent.ownerId,
            permissions: r.permissions,
            status,
            visiting,
          },
        ];
      });
    },

    /**
     * POST …/members (members:admin): a person of any Bay, by handle or id; an agent only of the
     * project's own Bay — one of another Bay comes in as a visitor, placed into a room by its sponsor.
     */
    async addMember(caller: HumanCaller, ref: ProjectRef, input: z.output<typeof memberAddFields>) {
      const project = await adminProject(caller, ref, "adds members");
      let memberId = input.member_id;
      if (input.handle !== undefined) {
        const human = await db.human.findUnique({ where: { handle: input.handle }, select: { id: true } });
        if (!human) throw HubError.invalid({ handle: "not_found" }, `nobody has the handle ${input.handle}`);
        memberId = human.id;
      }
      const id = memberId as string;
      if (id.startsWith("agt-")) {
        const agent = await db.agent.findUnique({ where: { id }, select: { owner: { select: { bayId: true } } } });
        // Another Bay's agent comes in as a visitor, placed by its sponsor (B-300); one never here is
        // answered exactly like no agent, so no agent id of another Bay is confirmed. One the admins
        // removed before comes back by their hand (its sponsor then places it in chats again).
        const before =
          agent && agent.owner.bayId !== project.bayId
            ? await db.membership.findUnique({
                where: { projectId_memberId: { projectId: project.id, memberId: id } },
                select: { status: true },
              })
            : null;
        if (!agent || (agent.owner.bayId !== project.bayId && !before))
          throw HubError.invalid({ member_id: "not_found" }, "no agent of this project's Bay has that id");
      }
      return admin.addMember(ref, { member_id: id, ...(input.permissions ? { permissions: input.permissions } : {}) });
    },

    /**
     * DELETE …/members/{member_id} (members:admin): §9.2's removal in every chat of the project. The
     * last members:admin person cannot leave the project without one.
     */
    async removeMember(caller: HumanCaller, ref: ProjectRef, memberId: string) {
      const project = await adminProject(caller, ref, "removes members");
      const admins = await db.membership.findMany({
        where: { projectId: project.id, status: "active", permissions: { has: "members:admin" } },
        select: { memberId: true },
      });
      if (admins.length === 1 && admins[0]?.memberId === memberId)
        throw new HubError("conflict", "the project's last members:admin person cannot be removed", {
          reason: "last_admin",
        });
      const member = await db.membership.findFirst({
        where: { projectId: project.id, memberId, status: "active" },
        select: { id: true },
      });
      if (!member) throw HubError.notFound("member not found");
      return admin.removeMember(ref, memberId, "removed");
    },

    /** POST /api/agents: an agent of the caller's own, named `<caller>/<handle>`; pair it as before. */
    async createAgent(caller: HumanCaller, input: z.output<typeof agentCreateFields>) {
      try {
        return await admin.createAgent({
          owner: caller.handle,
          handle: input.handle,
          ...(input.description === undefined ? {} : { description: input.description }),
        });
      } catch (error) {
        if (isHubError(error) && error.details.fields?.handle === "taken")
          throw HubError.invalid({ handle: "taken" }, "you already have an agent with that handle");
        throw error;
      }
    },

    /** PATCH /api/agents/{agent_id}: its owner changes what it is for. */
    async updateAgent(caller: HumanCaller, agentId: string, input: z.output<typeof agentPatchFields>) {
      await ownAgent(caller, agentId);
      const agent = await db.agent.update({
        where: { id: agentId },
        data: { description: input.description },
        select: { id: true, handle: true, ownerId: true, description: true, owner: { select: { handle: true } } },
      });
      return {
        id: agent.id,
        handle: agent.handle,
        name: agentName(agent.owner.handle, agent.handle),
        owner_id: agent.ownerId,
        description: agent.description,
      };
    },
  };
}

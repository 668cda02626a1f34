import {
  type Conversation,
  type ConversationItem,
  decodeListCursor,
  encodeListCursor,
  HubError,
  type listConversationsQuery,
  type MeItem,
  type PersonName,
  type meatProxyInput,
  type ProjectRef,
  PINS_MAX,
  projectFullName,
} from "@maity/domain";
import type { z } from "zod";
import type { Db, SqlExecutor } from "@maity/db";
import { memberProject, projectOf, resolveConversation } from "../access/resolve.ts";
import { renderProject } from "../access/projects.ts";
import type { Caller } from "../access/caller.ts";
import { type ListPageQuery, readListPage } from "./listPage.ts";
import { type KeyRow, readParticipants } from "../access/visibility.ts";
import { renderItem, renderView } from "./render.ts";
import { rawOf } from "../raw.ts";

// §9.3: the conversation list of one project and across projects, the conversation GET, pins and
// the per-chat meat-proxy choice.

function listQueryOf(q: z.output<typeof listConversationsQuery>) {
  const cursor = q.cursor === undefined ? null : decodeListCursor(q.cursor);
  if (q.cursor !== undefined && cursor === null)
    throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one this list gave out");
  return { ...q, cursor };
}

export function conversationService(db: Db, sql: SqlExecutor) {
  // The list's two statements on the driver itself, prepared once: planning the page's statement
  // each time cost about as much as running it (M-227, docs/bench.md).
  const raw = rawOf(sql);

  /**
   * One page in band order with the totals (statement 1, listPage.ts: walked in the order's indexes
   * over the participations' kept keys), then the participants of that page only (statement 2).
   */
  async function page(caller: Caller, query: ListPageQuery) {
    const { rows, next, totals } = await readListPage(raw, caller, query);
    const participants = await readParticipants(
      raw,
      rows.map((r) => r.key),
    );
    return {
      rows,
      totals,
      items: rows.map((r) => renderItem(r, participants.get(r.key) ?? [], { id: caller.id })),
      next_cursor: next ? encodeListCursor(next) : null,
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

    /** GET /projects/{owner}/{slug}/conversations (§9.3). */
    async list(
      caller: Caller,
      ref: ProjectRef,
      query: z.output<typeof listConversationsQuery>,
    ): Promise<{ items: ConversationItem[]; next_cursor: string | null }> {
      const q = listQueryOf(query);
      const project = await projectOf(db, ref);
      if (!project) throw HubError.notFound("project not found");
      const member = await db.membership.findFirst({
        where: { projectId: project.id, memberId: caller.id, status: "active" },
        select: { id: true },
      });
      if (!member) {
        // An owner outside the project reads along (§9.2); anyone else: the project does not exist.
        const agentThere =
          caller.kind === "human" &&
          (await db.membership.findFirst({
            where: {
              projectId: project.id,
              status: "active",
              memberKind: "agent",
              memberId: {
                in: (await db.agent.findMany({ where: { ownerId: caller.id }, select: { id: true } })).map((a) => a.id),
              },
            },
            select: { id: true },
          }));
        if (!agentThere) throw HubError.notFound("project not found");
      }
      const { items, next_cursor } = await page(caller, {
        projectId: project.id,
        observed: q.observed && caller.kind === "human",
        limit: q.limit,
        cursor: q.cursor,
      });
      return { items, next_cursor };
    },

    /**
     * GET /me/conversations (§9.3 Across projects): one keys statement over the caller's
     * memberships and one details statement for the page, whatever the number of projects.
     */
    async mine(
      caller: Caller,
      query: z.output<typeof listConversationsQuery>,
    ): Promise<{ items: MeItem[]; next_cursor: string | null; totals: { unread: number; mentions_unread: number } }> {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "an agent reads the list of its project");
      const q = listQueryOf(query);
      const result = await page(caller, { projectId: null, observed: q.observed, limit: q.limit, cursor: q.cursor });
      const items = result.items.map((item, i) => {
        const r = result.rows[i] as KeyRow;
        return {
          ...item,
          project: {
            owner: r.projectOwner,
            slug: r.projectSlug,
            full_name: projectFullName(r.projectOwner, r.projectSlug),
            name: r.projectName,
          },
        } as MeItem;
      });
      return { items, next_cursor: result.next_cursor, totals: result.totals };
    },

    /** GET …/conversations/{id}: a direct one answers its list item (§9.1), a group chat its view (§9.2). */
    async get(caller: Caller, ref: ProjectRef, conversationId: string): Promise<Conversation> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      const participants = (await readParticipants(db, [row.key])).get(row.key) ?? [];
      if (row.kind === "direct") return renderItem(row, participants, { id: caller.id }) as Conversation;
      return renderView(row, participants, { id: caller.id });
    },

    /** GET …/members: the project's active members, for choosing participants (members only, §9.2). */
    async members(caller: Caller, ref: ProjectRef) {
      const project = await memberProject(db, caller, ref);
      const rows = await db.membership.findMany({
        where: { projectId: project.id, status: "active" },
        select: { memberId: true, memberKind: true, permissions: true },
        orderBy: { joinedAt: "asc" },
      });
      const ids = rows.map((r) => r.memberId);
      const [humans, agents] = await Promise.all([
        db.human.findMany({ where: { id: { in: ids } }, select: { id: true, handle: true, displayName: true } }),
        db.agent.findMany({
          where: { id: { in: ids } },
          select: { id: true, handle: true, ownerId: true, owner: { select: { handle: true } } },
        }),
      ]);
      type ProjectMember = {
        member_id: string;
        kind: "human" | "agent";
        handle: string;
        name: string;
        owner_id: string | null;
        permissions: string[];
      };
      return rows.flatMap((r): ProjectMember[] => {
        const human = humans.find((h) => h.id === r.memberId);
        if (human)
          return [
            {
              member_id: r.memberId,
              kind: "human" as const,
              handle: human.handle,
              name: human.displayName,
              owner_id: null,
              permissions: r.permissions,
            },
          ];
        const agent = agents.find((a) => a.id === r.memberId);
        return agent
          ? [
              {
                member_id: r.memberId,
                kind: "agent" as const,
                handle: agent.handle,
                name: `${agent.owner.handle}/${agent.handle}`,
                owner_id: agent.ownerId,
                permissions: r.permissions,
              },
            ]
          : [];
      });
    },

    /**
     * No member id where a name exists: the names of members the caller meets — anyone
     * who is or was a member of a project the caller is active in (history keeps former members'
     * messages). Ids outside that are left out, as if unknown.
     */
    async names(caller: Caller, ids: string[]): Promise<PersonName[]> {
      const mine = await db.membership.findMany({
        where: { memberId: caller.id, status: "active" },
        select: { projectId: true },
      });
      const seen = await db.membership.findMany({
        where: { projectId: { in: mine.map((m) => m.projectId) }, memberId: { in: [...new Set(ids)] } },
        select: { memberId: true },
        distinct: ["memberId"],
      });
      const known = seen.map((m) => m.memberId);
      const [humans, agents] = await Promise.all([
        db.human.findMany({ where: { id: { in: known } }, select: { id: true, handle: true, displayName: true } }),
        db.agent.findMany({
          where: { id: { in: known } },
          select: { id: true, handle: true, ownerId: true, owner: { select: { handle: true } } },
        }),
      ]);
      return [
        ...humans.map((h) => ({
          member_id: h.id,
          kind: "human" as const,
          handle: h.handle,
          name: h.displayName,
          owner_id: null,
        })),
        ...agents.map((a) => ({
          member_id: a.id,
          kind: "agent" as const,
          handle: a.handle,
          name: `${a.owner.handle}/${a.handle}`,
          owner_id: a.ownerId,
        })),
      ].sort((a, b) => a.member_id.localeCompare(b.member_id));
    },

    /** PUT …/pin: humans only, idempotent, at most 20 per human across projects (§9.3). */
    async pin(caller: Caller, ref: ProjectRef, conversationId: string): Promise<void> {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "pins are a human's own");
      const row = await resolveConversation(db, caller, ref, conversationId);
      await db.$transaction(async (tx) => {
        const pinned = await tx.pin.findUnique({
          where: { humanId_conversationId: { humanId: caller.id, conversationId: row.key } },
          select: { humanId: true },
        });
        if (pinned) return;
        if ((await tx.pin.count({ where: { humanId: caller.id } })) >= PINS_MAX)
          throw HubError.invalid({ pin: "too_many" }, `at most ${PINS_MAX} pins`);
        await tx.pin.create({ data: { humanId: caller.id, conversationId: row.key } });
      });
    },

    async unpin(caller: Caller, ref: ProjectRef, conversationId: string): Promise<void> {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "pins are a human's own");
      const row = await resolveConversation(db, caller, ref, conversationId);
      await db.pin.deleteMany({ where: { humanId: caller.id, conversationId: row.key } });
    },

    /** PUT …/meat-proxy: the lead part for one conversation the human takes part in; no event (§9.3). */
    async setMeatProxy(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      data: z.output<typeof meatProxyInput>,
    ): Promise<void> {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "the meat-proxy mode is a human's own");
      const row = await resolveConversation(db, caller, ref, conversationId);
      if (row.access === "observer")
        throw HubError.forbidden("not_a_participant", "set it in a conversation you take part in");
      await db.participation.updateMany({
        where: { conversationId: row.key, memberId: caller.id, leftAt: null },
        data: { meatProxyChat: data.meat_proxy },
      });
    },
  };
}
export type ConversationService = ReturnType<typeof conversationService>;

import { createHash } from "node:crypto";
import {
  type addParticipantInput,
  checkGroupParticipants,
  placementOf,
  planPolicyChange,
  replyPolicyOf,
  type createGroupInput,
  groupConversationId,
  type GroupView,
  HubError,
  type ProjectRef,
  type updateGroupInput,
} from "@maity/domain";
import type { z } from "zod";
import type { Db } from "@maity/db";
import {
  memberProject,
  refuseDirect,
  refuseNonManager,
  refuseObserver,
  resolveConversation,
  resolveManaged,
} from "../access/resolve.ts";
import { takeAppendLock } from "../delivery/append.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { Caller } from "../access/caller.ts";
import { payloadView } from "./render.ts";
import { joinAsVisitor, notSponsor, ownSessionsAmong, sponsorsVisitor, visitorPlacement } from "./placement.ts";

/** §1.7 open group chats per project (documented default; MAITY_GROUP_CHAT_QUOTA overrides). */
export const DEFAULT_GROUP_CHAT_QUOTA = 100;

import {
  appendConversationEvent,
  emitUpdated,
  endParticipation,
  enterGroup,
  lockLog,
  type Participation,
  renderParticipation,
  viewFor,
} from "./participation.ts";

export function groupService(db: Db, bus: LiveBus, options: { quota?: number } = {}) {
  const quota = options.quota ?? DEFAULT_GROUP_CHAT_QUOTA;
  return {
    /** §9.2 create: humans only, 2–12 participants with the creator, idempotent by key. */
    async create(
      caller: Caller,
      ref: ProjectRef,
      data: z.output<typeof createGroupInput>,
      idempotencyKey?: string | null,
      /**
       * The operator's demo seed (no route passes it) places visitors on their sponsors' behalf;
       * `sessions` are the caller's terminal sessions (DESIGN §4e), woken only by the caller.
       */
      options: { operator?: boolean; sessions?: string[] } = {},
    ): Promise<{ status: 200 | 201; view: GroupView }> {
      const project = await memberProject(db, caller, ref);
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "only a human creates a group chat");
      if (
        idempotencyKey !== undefined &&
        idempotencyKey !== null &&
        (idempotencyKey.length < 1 || idempotencyKey.length > 200)
      )
        throw HubError.invalid({ idempotency_key: "1–200 characters" });
      const title = data.title ?? null;
      const requestHash = createHash("sha256")
        .update(JSON.stringify([project.id, title, data.participants]))
        .digest("hex");
      if (idempotencyKey) {
        const seen = await db.idempotencyKey.findUnique({
          where: { callerId_key: { callerId: caller.id, key: idempotencyKey } },
          select: { requestHash: true, response: true },
        });
        if (seen) {
          if (seen.requestHash !== requestHash)
            throw HubError.invalid(
              { idempotency_key: "reused_with_other_body" },
              "this Idempotency-Key was used with another request",
            );
          return {
            status: 200,
            view: await viewFor(db, caller, project.id, (seen.response as { conversation: string }).conversation),
          };
        }
      }
      if (project.archivedAt) throw new HubError("project_closed", "the project is archived");
      // DESIGN §4e: the caller's own sessions come in woken by the caller alone; another's are refused.
      const ownSessions = new Set([
        ...(options.sessions ?? []),
        ...(await ownSessionsAmong(db, caller, data.participants)),
      ]);
      const result = await db.$transaction(async (tx) => {
        const rows = await tx.membership.findMany({
          where: { projectId: project.id, status: "active" },
          select: { memberId: true, memberKind: true },
        });
        const agentOwners = await tx.agent.findMany({
          where: { id: { in: rows.filter((r) => r.memberKind === "agent").map((r) => r.memberId) } },
          select: { id: true, ownerId: true, owner: { select: { bayId: true } } },
        });
        // B-300: a visitor (an agent of another Bay, already placed in the project) enters a new room
        // only by its sponsor's hand, like any placement.
        const visitors = new Set<string>();
        for (const agent of agentOwners) {
          if (!data.participants.includes(agent.id)) continue;
          const placement = placementOf(
            { ownerId: agent.ownerId, homeBayId: agent.owner.bayId },
            project.bayId,
            caller.id,
          );
          if (placement === "not_sponsor" && !options.operator) throw notSponsor();
          if (placement !== "member") visitors.add(agent.id);
        }
        const members = new Map(
          rows.map((r) => [
            r.memberId,
            {
              kind: r.memberKind as "human" | "agent",
              ownerId: agentOwners.find((a) => a.id === r.memberId)?.ownerId ?? null,
            },
          ]),
        );
        const verdict = checkGroupParticipants({
          creatorId: caller.id,
          requested: data.participants,
          members,
          sessionRoom: data.participants.every((id) => options.sessions?.includes(id)),
        });
        if (!verdict.ok) throw HubError.invalid({ participants: verdict.reason });
        const open = await tx.conversation.count({ where: { projectId: project.id, kind: "group", closedAt: null } });
        if (open >= quota)
          throw new HubError("conversation_quota", `the project has ${open} open group chats, the most allowed`, {
            limit: quota,
          });
        const created = await tx.conversation.create({
          data: {
            projectId: project.id,
            publicId: `pending-${requestHash}`,
            kind: "group",
            title,
            createdById: caller.id,
          },
          select: { id: true, number: true, createdAt: true },
        });
        const publicId = groupConversationId(created.number);
        await tx.conversation.update({ where: { id: created.id }, data: { publicId } });
        const last = await lockLog(tx);
        const now = new Date();
        await tx.participation.createMany({
          data: verdict.members.map((memberId) => ({
            conversationId: created.id,
            memberId,
            memberKind: members.get(memberId)?.kind ?? "human",
            joinedAt: now,
            joinedSeq: last,
            readMarkerSeq: last,
            // §9.3 activity of a chat without messages in the window: its created_at (M-227).
            activityAt: created.createdAt,
            projectId: project.id,
            ...(visitors.has(memberId) ? { historyFloor: last, wake: "anyone" } : {}),
            ...(ownSessions.has(memberId) ? { wake: "sponsor" } : {}),
          })),
        });
        // conversation_created wakes no agent (§9.2 Wake): no routing verdicts.
        const event = await appendConversationEvent(tx, last, {
          kind: "conversation_created",
          projectId: project.id,
          conversationKey: created.id,
          publicId,
          fromId: caller.id,
          payload: { conversation: await payloadView(tx, created.id) },
          audience: verdict.members,
        });
        if (idempotencyKey)
          await tx.idempotencyKey.create({
            data: { callerId: caller.id, key: idempotencyKey, requestHash, response: { conversation: publicId } },
          });
        return { view: await viewFor(tx, caller, project.id, publicId), bus: event };
      });
      bus.publish(result.bus);
      return { status: 201, view: result.view };
    },

    /** PATCH …/conversations/{id}: rename (managers; allowed in an archived project, refused once closed). */
    async update(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      data: z.output<typeof updateGroupInput>,
    ): Promise<GroupView> {
      const row = await resolveManaged(db, caller, ref, conversationId);
      const message = await db.$transaction(async (tx) => {
        const changed: Record<string, unknown> = {};
        const update: Record<string, unknown> = {};
        if (data.title !== undefined && data.title !== row.title) update.title = changed.title = data.title;
        if (data.custom_rules !== undefined && data.custom_rules !== row.policy.customRules)
          update.customRules = changed.custom_rules = data.custom_rules;
        if (
          data.reply_policy !== undefined ||
          data.designated_agent_id !== undefined ||
          data.max_agent_rounds !== undefined
        ) {
          // 004 §4: the policy as it will stand, checked whole against the room's agents (domain planPolicyChange).
          const current = await tx.conversation.findUniqueOrThrow({
            where: { id: row.key },
            select: { maxAgentRoundsAcceptedAt: true },
          });
          const agents = (
            await tx.participation.findMany({
              where: { conversationId: row.key, leftAt: null, memberKind: "agent" },
              select: { memberId: true },
            })
          ).map((p) => p.memberId);
          const plan = planPolicyChange(
            {
              policy: replyPolicyOf(row.policy.replyPolicy),
              designatedAgentId: row.policy.designatedAgentId,
              maxAgentRounds: row.policy.maxAgentRounds,
              roundsAccepted: current.maxAgentRoundsAcceptedAt !== null,
            },
            data,
            agents,
          );
          if (!plan.ok) throw HubError.invalid(plan.fields, "the reply policy is not valid for this chat");
          if (plan.policy !== row.policy.replyPolicy) update.replyPolicy = changed.reply_policy = plan.policy;
          if (plan.designatedAgentId !== row.policy.designatedAgentId)
            update.designatedAgentId = changed.designated_agent_id = plan.designatedAgentId;
          if (plan.maxAgentRounds !== row.policy.maxAgentRounds) {
            update.maxAgentRounds = changed.max_agent_rounds = plan.maxAgentRounds;
            // B-067: record who accepted the token cost; a value within the limit needs none.
            update.maxAgentRoundsAcceptedById = plan.roundsAccepted ? caller.id : null;
            update.maxAgentRoundsAcceptedAt = plan.roundsAccepted ? new Date() : null;
          }
        }
        if (!Object.keys(update).length) return null;
        // Lock order (docs/development.md "Counters"): the append lock before the conversation's row,
        // as every chat write takes them; the other order could deadlock with a write on PostgreSQL.
        await takeAppendLock(tx);
        await tx.conversation.update({ where: { id: row.key }, data: update });
        return emitUpdated(tx, row.key, caller.id, changed);
      });
      if (message) bus.publish(message);
      return viewFor(db, caller, row.projectId, row.id);
    },

    /**
     * POST …/participants {member_id}: a manager adds an active member; already in → 200 as it is. An
     * agent of another Bay is a visitor (DESIGN §4c, B-300): only its sponsor — the person of its Bay
     * who brings it, a participant here — places it, the first placement making it a member.
     */
    async addParticipant(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      data: z.output<typeof addParticipantInput>,
    ): Promise<GroupView> {
      // DESIGN §4e: only its person brings a session in, and then it is woken by that person alone.
      const ownSession = (await ownSessionsAmong(db, caller, [data.member_id])).length > 0;
      const visit = await visitorPlacement(db, caller, ref, conversationId, data);
      const row = visit ? visit.row : await resolveManaged(db, caller, ref, conversationId);
      if (!visit && (data.share_history !== undefined || data.wake !== undefined))
        throw HubError.invalid(
          { [data.share_history !== undefined ? "share_history" : "wake"]: "visitors_only" },
          "only a visiting agent's placement says what it reads and who wakes it",
        );
      if (row.projectArchived) throw new HubError("project_closed", "the project is archived");
      const message = await db.$transaction(async (tx) => {
        if (visit) await joinAsVisitor(tx, row.projectId, data.member_id);
        // B-301: a visitor reads from its placement, or — shared — from its sponsor's floor (people: 0).
        const placed = visit
          ? {
              historyFloor: data.share_history ? (0 as const) : ("head" as const),
              wake: ownSession ? "sponsor" : (data.wake ?? "anyone"),
            }
          : ownSession
            ? { wake: "sponsor" }
            : {};
        const room = { key: row.key, projectId: row.projectId, createdAt: row.createdAt };
        return enterGroup(tx, room, data.member_id, caller.id, placed);
      });
      if (message) bus.publish(message);
      return viewFor(db, caller, row.projectId, row.id);
    },

    /**
     * PATCH …/participants/{member_id}: the participation's own settings — today only `wake`,
     * which is not built (§9.2), so every change is refused by name (OQ-M-23).
     */
    async updateParticipant(caller: Caller, ref: ProjectRef, conversationId: string, memberId: string): Promise<never> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      refuseDirect(row);
      const participant = await db.participation.findFirst({
        where: { conversationId: row.key, memberId, leftAt: null },
        select: { id: true },
      });
      if (!participant) throw HubError.notFound("participant not found");
      throw HubError.invalid({ wake: "not_supported" }, "per-participation wake is not built");
    },

    /**
     * DELETE …/participants/{member_id}: anyone leaves (own id); managers remove others. Not a
     * participant: 200 with its last participation, or not_found when it never took part (§9.2).
     */
    async removeParticipant(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      memberId: string,
    ): Promise<Participation> {
      const row = await resolveConversation(db, caller, ref, conversationId);
      refuseDirect(row);
      const self = memberId === caller.id;
      // B-307: the person who brought a visitor takes it out of a room, reading along or in it.
      if (self || !(await sponsorsVisitor(db, caller, row.projectId, memberId))) {
        refuseObserver(row);
        if (!self) await refuseNonManager(db, caller, row);
      }
      const result = await db.$transaction(async (tx) => {
        const ended = await endParticipation(tx, row.key, memberId, self ? "left" : "removed", caller.id);
        if (ended) return ended;
        const last = await tx.participation.findFirst({
          where: { conversationId: row.key, memberId },
          orderBy: [{ joinedAt: "desc" }, { id: "desc" }],
          select: { memberId: true, joinedAt: true, leftAt: true, leftReason: true },
        });
        if (!last) throw HubError.notFound("participant not found");
        return { participation: renderParticipation(last), bus: null };
      });
      if (result.bus) bus.publish(result.bus);
      return result.participation;
    },
  };
}
export type GroupService = ReturnType<typeof groupService>;

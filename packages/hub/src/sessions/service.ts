import {
  HubError,
  isGroupIdShaped,
  type JoinSessionInput,
  type JoinSessionOutput,
  joinedLine,
  matchGroup,
  SESSIONS_PROJECT_SLUG,
  type SessionView,
  type sessionCreateGroupInput,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { z } from "zod";
import type { AgentCaller, DeviceCaller, HumanCaller } from "../access/caller.ts";
import type { BusMessage, LiveBus } from "../delivery/bus.ts";
import { closeDirectFor } from "../conversations/direct.ts";
import type { GroupService } from "../conversations/groups.ts";
import { admit, identity } from "./identity.ts";
import { directRoom, personGroups, ROOM_SELECT, type Room, roomOf, sessionsGroup, sessionsProject } from "./rooms.ts";
import { joinSessionGroup } from "./sessionGroup.ts";
import type { AgentService } from "../agents/service.ts";
import { endParticipation, enterGroup } from "../conversations/participation.ts";

// Terminal sessions (issue 30, DESIGN §4e, B-310…B-331): a person's device credential acts only as
// named sessions, each an agent of the person (kind `session`, one per person, Bay and name). A
// session joins rooms for itself — a group the person is in (by id before title, never creating
// one), the Bay's shared Sessions group, or a private chat with its person — and is woken only by
// its person there (wake "sponsor", §4c), except in the shared Sessions group, which is for talking.

/**
 * Two first joins of one name at once both make the identity: the later transaction meets the unique
 * key and is run again, when it finds the identity made (never a 500 for a race).
 */
async function retryOnce<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if ((error as { code?: string }).code !== "P2002") throw error;
    return run();
  }
}

const sessionNotFound = (name: string) =>
  HubError.notFound(`no session "${name}" in this Bay: join_session first`).named("SESSION_NOT_FOUND");

const personOf = (device: DeviceCaller): HumanCaller => ({
  kind: "human",
  id: device.id,
  handle: device.handle,
  name: device.name,
});

export function sessionService(db: Db, bus: LiveBus, groups: GroupService, agents: AgentService) {
  async function homeBayOf(device: DeviceCaller): Promise<string> {
    const human = await db.human.findUniqueOrThrow({ where: { id: device.id }, select: { bayId: true } });
    return human.bayId;
  }

  async function view(tx: Db | Tx, sessionId: string, device: DeviceCaller): Promise<SessionView> {
    const s = await tx.agentSession.findUniqueOrThrow({
      where: { agentId: sessionId },
      select: { name: true, runtime: true, threadId: true, createdAt: true, joinedAt: true },
    });
    return {
      id: sessionId,
      name: s.name,
      bay: device.bay,
      runtime: s.runtime === "codex" ? "codex" : null,
      threadId: s.threadId,
      createdAt: s.createdAt.toISOString(),
      lastJoinedAt: s.joinedAt.toISOString(),
    };
  }

  const answer = (
    text: string,
    session: SessionView,
    device: DeviceCaller,
    room: Room,
    status: JoinSessionOutput["incomingDelivery"]["status"],
  ): JoinSessionOutput => ({
    text,
    session,
    bay: device.bay,
    conversation: {
      id: room.key,
      maityId: room.maityId,
      type: room.kind === "group" ? "GROUP" : "DM",
      title: room.title,
      project: room.project,
    },
    incomingDelivery: { status },
  });

  return {
    /** join_session_group (v1.9, B-323): sessionGroup.ts. */
    joinSessionGroup: (agent: AgentCaller) => joinSessionGroup(db, bus, agents, agent),

    /** The person's live session `name` in the credential's Bay, as the caller it acts as (B-310). */
    async as(device: DeviceCaller, name: string): Promise<AgentCaller> {
      const row = await db.agentSession.findUnique({
        where: { humanId_bayId_name: { humanId: device.id, bayId: device.bay.id, name } },
        select: { agentId: true, endedAt: true, agent: { select: { handle: true } } },
      });
      if (!row || row.endedAt) throw sessionNotFound(name);
      return {
        kind: "agent",
        id: row.agentId,
        handle: row.agent.handle,
        ownerId: device.id,
        instanceId: null,
        session: { name, deviceId: device.deviceId, bayId: device.bay.id },
      };
    },

    /**
     * join_session (B-314…B-321, B-327…B-330): into a group of the person's by id (exactly, first)
     * or exact title, the Bay's Sessions group, or — neither — its private chat with the person.
     */
    async join(device: DeviceCaller, input: JoinSessionInput): Promise<JoinSessionOutput> {
      const homeBayId = await homeBayOf(device);
      const visiting = homeBayId !== device.bay.id;
      // Lock order as everywhere: membership rows first, the append lock (the group's join) last.
      const result = await retryOnce(() =>
        db.$transaction(async (tx) => {
          const bus: BusMessage[] = [];
          let room: Room | null = null;
          let projectId: string;
          let shared = false;
          if (input.group !== undefined) {
            const match = matchGroup(await personGroups(tx, device), input.group);
            if ("refused" in match) {
              if (match.refused === "GROUP_AMBIGUOUS")
                throw new HubError(
                  "conflict",
                  `${match.ids.length} of your groups are titled "${input.group}": pass the group's id instead (` +
                    `${match.ids.join(", ")})`,
                  { reason: "group_ambiguous", ids: match.ids },
                  { agentCode: "GROUP_AMBIGUOUS" },
                );
              // B-315, B-317: another Bay's group, one the person is not in, and no group at all read alike.
              throw HubError.notFound(`no group "${input.group}" among your groups in this Bay`).named(
                "GROUP_NOT_FOUND",
              );
            }
            room = match.found;
            projectId = room.projectId;
          } else {
            projectId = (await sessionsProject(tx, device, homeBayId)).id;
            shared = input.sessions === true;
          }
          const sessionId = await identity(tx, device, input.session, homeBayId);
          await admit(tx, sessionId, projectId, visiting);
          if (shared) {
            const group = await sessionsGroup(tx, device, projectId);
            room = group.room;
            bus.push(...group.bus);
          }
          if (room) {
            // §4e: a session is woken by its person alone, except in the shared Sessions group (v1.9).
            const placed = {
              ...(room.sessions ? { uncapped: true } : { wake: "sponsor" }),
              ...(visiting ? { historyFloor: "head" as const } : {}),
            };
            const entered = await enterGroup(tx, room, sessionId, device.id, placed);
            if (entered) bus.push(entered);
          } else room = await directRoom(tx, projectId, sessionId);
          // B-328, B-330: a Codex registration, or none (a join without runtime clears it).
          await tx.agentSession.update({
            where: { agentId: sessionId },
            data:
              input.runtime === "codex"
                ? { runtime: "codex", threadId: input.threadId ?? null, registeredAt: new Date() }
                : { runtime: null, threadId: null, registeredAt: null },
          });
          return { sessionId, room, bus, session: await view(tx, sessionId, device) };
        }),
      );
      for (const message of result.bus) bus.publish(message);
      const status = input.runtime === "codex" ? (input.threadId ? "registered" : "unavailable") : "none";
      const text = [
        joinedLine(input.session, device.bay.name, {
          type: result.room.kind === "group" ? "GROUP" : "DM",
          title: result.room.title,
        }),
        `conversationId ${result.room.key} (${result.room.project}). ` +
          (result.room.sessions
            ? "The room's reply policy applies here: an @mention wakes this session."
            : `Only ${device.name}'s messages wake this session.`),
        ...(status === "registered" ? ["Incoming delivery: registered with this Codex thread."] : []),
        ...(status === "unavailable"
          ? ["Incoming delivery: unavailable — no threadId was passed; say so, do not fall back to shell commands."]
          : []),
      ].join("\n");
      return answer(text, result.session, device, result.room, status);
    },

    /** list_sessions and GET /api/device-api/sessions: the person's live sessions of this Bay; B-331 registrations. */
    async list(device: DeviceCaller) {
      const rows = await db.agentSession.findMany({
        where: { humanId: device.id, bayId: device.bay.id, endedAt: null },
        select: {
          agentId: true,
          name: true,
          deviceId: true,
          runtime: true,
          threadId: true,
          registeredAt: true,
          createdAt: true,
          joinedAt: true,
        },
        orderBy: { joinedAt: "desc" },
      });
      return {
        sessions: rows.map((s) => ({
          id: s.agentId,
          name: s.name,
          bay: device.bay,
          runtime: s.runtime === "codex" ? ("codex" as const) : null,
          threadId: s.threadId,
          createdAt: s.createdAt.toISOString(),
          lastJoinedAt: s.joinedAt.toISOString(),
        })),
        // B-331: only this device's registrations (the relay of the computer the session joined from).
        registrations: rows
          .filter((s) => s.deviceId === device.deviceId && s.runtime === "codex" && s.threadId && s.registeredAt)
          .map((s) => ({
            session: s.name,
            runtime: "codex" as const,
            threadId: s.threadId ?? "",
            registeredAt: s.registeredAt?.toISOString() ?? "",
          })),
      };
    },

    /** end_session (B-339): the identity leaves every room; its streams end; a later join brings it back. */
    async end(device: DeviceCaller, name: string) {
      const result = await db.$transaction(async (tx) => {
        const key = { humanId_bayId_name: { humanId: device.id, bayId: device.bay.id, name } };
        const session = await tx.agentSession.findUnique({ where: key, select: { agentId: true, endedAt: true } });
        if (!session || session.endedAt) throw sessionNotFound(name);
        // Its membership rows first, the append lock (each room's leaving) after: the hub's lock order.
        const projects = await tx.membership.findMany({
          where: { memberId: session.agentId, status: "active" },
          select: { projectId: true },
        });
        await tx.membership.updateMany({
          where: { memberId: session.agentId, status: "active" },
          data: { status: "left", endedAt: new Date() },
        });
        const open = await tx.participation.findMany({
          where: { memberId: session.agentId, leftAt: null, conversation: { kind: "group" } },
          select: { conversationId: true },
        });
        const bus: BusMessage[] = [];
        for (const p of open) {
          const ended = await endParticipation(tx, p.conversationId, session.agentId, "left", session.agentId);
          if (ended) bus.push(ended.bus);
        }
        for (const m of projects) await closeDirectFor(tx, m.projectId, session.agentId);
        // An ended session is started fresh no more: a fresh start under way ends with it (B-293).
        await tx.freshStart.updateMany({
          where: { sessionId: session.agentId, state: { in: ["awaiting_note", "note_saved", "cleared"] } },
          data: { state: "cancelled", finishedAt: new Date() },
        });
        await tx.agentSession.update({ where: key, data: { endedAt: new Date(), runtime: null, threadId: null } });
        await tx.sessionListener.updateMany({
          where: { sessionId: session.agentId },
          data: { state: "stopped", ticketHash: null, generation: { increment: 1 }, updatedAt: new Date() },
        });
        const listener = await tx.sessionListener.findUnique({
          where: { sessionId: session.agentId },
          select: { generation: true },
        });
        // Its monitor closes with 4000: intentionally stopped (B-339).
        if (listener) bus.push({ type: "listener", sessionId: session.agentId, generation: listener.generation });
        return { agentId: session.agentId, roomsLeft: open.length, bus };
      });
      for (const message of result.bus) bus.publish(message);
      // Its held reads and listener end (auth watch); its cached identity is forgotten.
      bus.publish({ type: "credentials", agentId: result.agentId });
      return { ended: true as const, session: name, roomsLeft: result.roomsLeft };
    },

    /** list_groups (B-311): the groups this login is in — exact title, members, ids. */
    async groups(device: DeviceCaller) {
      const rooms = await personGroups(db, device);
      const members = await db.participation.findMany({
        where: { conversationId: { in: rooms.map((r) => r.key) }, leftAt: null },
        select: { conversationId: true, memberId: true, memberKind: true },
        orderBy: { joinedAt: "asc" },
      });
      const ids = [...new Set(members.map((m) => m.memberId))];
      const [humans, agents] = await Promise.all([
        db.human.findMany({ where: { id: { in: ids } }, select: { id: true, displayName: true } }),
        db.agent.findMany({
          where: { id: { in: ids } },
          select: { id: true, handle: true, kind: true, owner: { select: { handle: true } } },
        }),
      ]);
      const names = new Map<string, { name: string; kind: "user" | "agent" | "session" }>([
        ...humans.map((h) => [h.id, { name: h.displayName, kind: "user" as const }] as const),
        ...agents.map(
          (a) =>
            [
              a.id,
              { name: `${a.owner.handle}/${a.handle}`, kind: a.kind === "session" ? "session" : ("agent" as const) },
            ] as const,
        ),
      ]);
      return {
        bay: device.bay,
        groups: rooms.map((r) => ({
          id: r.key,
          maityId: r.maityId,
          title: r.title,
          project: r.project,
          sessions: r.sessions,
          members: members
            .filter((m) => m.conversationId === r.key)
            .map((m) => ({
              id: m.memberId,
              ...(names.get(m.memberId) ?? { name: m.memberId, kind: "user" as const }),
            })),
        })),
      };
    },

    /**
     * create_group (B-311, B-318): a group in a project of this Bay (default the Bay's `sessions`)
     * with the calling session in it; its person creates and manages it (an agent manages no chat, §9.2).
     */
    async createGroup(
      device: DeviceCaller,
      input: z.output<typeof sessionCreateGroupInput>,
    ): Promise<JoinSessionOutput> {
      if (isGroupIdShaped(input.title))
        throw HubError.invalid(
          { title: "shaped_like_an_id" },
          "a title shaped like a group id would make join_session's group ambiguous: choose another title",
          { agentCode: "GROUP_TITLE_IS_ID" },
        );
      const homeBayId = await homeBayOf(device);
      const visiting = homeBayId !== device.bay.id;
      const slug = input.project?.includes("/") ? input.project.split("/")[1] : input.project;
      const owner = input.project?.includes("/") ? input.project.split("/")[0] : device.bay.name;
      const { sessionId, ref } = await db.$transaction(async (tx) => {
        let target: { id: string; ref: { owner: string; slug: string } };
        if (slug === undefined || slug === SESSIONS_PROJECT_SLUG) target = await sessionsProject(tx, device, homeBayId);
        else {
          const project = await tx.project.findFirst({
            where: { bayId: device.bay.id, slug, bay: { handle: owner }, archivedAt: null },
            select: {
              id: true,
              memberships: { where: { memberId: device.id, status: "active" }, select: { id: true } },
            },
          });
          if (!project?.memberships.length)
            throw HubError.notFound(`no project "${input.project}" of yours in this Bay`).named("PROJECT_NOT_FOUND");
          target = { id: project.id, ref: { owner: device.bay.name, slug } };
        }
        const id = await identity(tx, device, input.session, homeBayId);
        await admit(tx, id, target.id, visiting);
        return { sessionId: id, ref: target.ref };
      });
      const created = await groups.create(
        personOf(device),
        ref,
        { title: input.title, participants: [sessionId] },
        null,
        { sessions: [sessionId] },
      );
      const row = await db.conversation.findFirstOrThrow({
        where: { publicId: created.view.id, project: { bayId: device.bay.id, slug: ref.slug } },
        select: ROOM_SELECT,
      });
      const room = roomOf(row);
      const text = [
        `${joinedLine(input.session, device.bay.name, { type: "GROUP", title: room.title })} (created)`,
        `conversationId ${room.key} (${room.project}); ${device.name} manages it and adds people in the dashboard.`,
      ].join("\n");
      return answer(text, await view(db, sessionId, device), device, room, "none");
    },
  };
}

export type SessionService = ReturnType<typeof sessionService>;

import { HubError, type ProjectRef, agentName, isVisiting } from "@maity/domain";
import type { Db } from "@maity/db";
import type { HumanCaller } from "../access/caller.ts";
import { findProject } from "../access/projects.ts";
import { readKeys } from "../access/visibility.ts";
import type { BusMessage, LiveBus } from "../delivery/bus.ts";
import { closeDirectFor } from "../conversations/direct.ts";
import { endParticipation, prunePins } from "../conversations/participation.ts";
import { executorOf, writeQuietLine } from "../messages/quiet.ts";

// Sending a visitor home (v1.14, DESIGN §4c, B-307): its sponsor — here its owner, Bays being
// personal unless the operator shares one — takes it out of every room of the project at once, each
// room told "<name> was sent home", and its membership there ends. One room only is the usual
// DELETE …/participants (a room admin, or the sponsor: groups.ts).

export function visitorService(db: Db, bus: LiveBus) {
  return {
    /** POST …/visitors/{member_id}/recall → {rooms_left}; anyone but its sponsor meets a missing visitor. */
    async recall(caller: HumanCaller, ref: ProjectRef, agentId: string): Promise<{ rooms_left: string[] }> {
      const project = await findProject(db, ref.owner, ref.slug);
      const agent = await db.agent.findUnique({
        where: { id: agentId },
        select: { id: true, handle: true, ownerId: true, owner: { select: { handle: true, bayId: true } } },
      });
      const membership = project
        ? await db.membership.findUnique({
            where: { projectId_memberId: { projectId: project.id, memberId: agentId } },
            select: { id: true, status: true },
          })
        : null;
      // Hidden is missing: not a visitor of this project, or not the caller's to send home.
      if (
        !project ||
        !agent ||
        agent.ownerId !== caller.id ||
        !isVisiting(agent.owner.bayId, project.bayId) ||
        membership?.status !== "active"
      )
        throw HubError.notFound("visitor not found");
      const name = agentName(agent.owner.handle, agent.handle);
      const visitor = {
        kind: "agent" as const,
        id: agent.id,
        handle: agent.handle,
        ownerId: agent.ownerId,
        instanceId: null,
      };
      const result = await db.$transaction(async (tx) => {
        // The membership row first, as a removal and a placement take it (then the append lock): no
        // deadlock with them, and a placement racing this one waits and then finds it sent home.
        const [held] = await tx.$queryRawUnsafe<{ id: string }[]>(
          "SELECT id FROM memberships WHERE id = $1 AND status = 'active' FOR UPDATE",
          membership.id,
        );
        if (!held) throw HubError.notFound("visitor not found");
        const rooms = (await readKeys(tx, visitor, { projectId: project.id, observed: false, lean: true })).filter(
          (r) => r.kind === "group",
        );
        const messages: BusMessage[] = [];
        for (const room of rooms) {
          const line = await writeQuietLine(executorOf(tx), room, {
            type: "visitor.sent_home",
            actor: agent.id,
            // Each recall is news: a fresh subject, so the quiet-line dedupe never swallows a second one.
            subject: `${project.id}:${Date.now()}`,
            body: `${name} was sent home`,
          });
          if (line) messages.push(line);
          const ended = await endParticipation(tx, room.key, agent.id, "sent_home", caller.id);
          if (ended) messages.push(ended.bus);
        }
        // "sent_home", not an admin's "removed": its sponsor may bring it again (placement.ts).
        await tx.membership.update({
          where: { id: membership.id },
          data: { status: "sent_home", endedAt: new Date() },
        });
        await closeDirectFor(tx, project.id, agent.id);
        const all = await tx.conversation.findMany({ where: { projectId: project.id }, select: { id: true } });
        await prunePins(
          tx,
          all.map((c) => c.id),
        );
        return { rooms: rooms.map((r) => r.id), messages };
      });
      for (const message of result.messages) bus.publish(message);
      return { rooms_left: result.rooms };
    },
  };
}
export type VisitorService = ReturnType<typeof visitorService>;

import { randomBytes } from "node:crypto";
import { HubError, projectFullName, SESSIONS_GROUP_TITLE, SESSIONS_PROJECT_SLUG } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { DeviceCaller } from "../access/caller.ts";
import type { BusMessage } from "../delivery/bus.ts";
import { appendConversationEvent, enterGroup, lockLog } from "../conversations/participation.ts";
import { payloadView } from "../conversations/render.ts";

// Where a terminal session joins (DESIGN §4e, B-314…B-321): the groups of its person in the
// credential's Bay, the Bay's `sessions` project and its shared Sessions group (made on first use,
// by the Bay's own people only), and a session's private chat with its person.

/** Who made the Bay's Sessions group: the hub, on the first `sessions: true` join (v1.9). */
export const SESSIONS_CREATOR = "hub:sessions";

export type Room = {
  /** The conversation's key: the agent API's conversationId (and `key` where the hub's helpers want it). */
  id: string;
  key: string;
  maityId: string;
  title: string | null;
  kind: "group" | "direct";
  projectId: string;
  project: string;
  bayId: string;
  createdAt: Date;
  sessions: boolean;
};

export const ROOM_SELECT = {
  id: true,
  publicId: true,
  title: true,
  kind: true,
  projectId: true,
  createdAt: true,
  createdById: true,
  project: { select: { slug: true, bayId: true, bay: { select: { handle: true } } } },
} as const;
type RoomRow = {
  id: string;
  publicId: string;
  title: string | null;
  kind: string;
  projectId: string;
  createdAt: Date;
  createdById: string | null;
  project: { slug: string; bayId: string; bay: { handle: string } };
};
export const roomOf = (c: RoomRow): Room => ({
  id: c.id,
  key: c.id,
  maityId: c.publicId,
  title: c.title,
  kind: c.kind === "direct" ? "direct" : "group",
  projectId: c.projectId,
  project: projectFullName(c.project.bay.handle, c.project.slug),
  bayId: c.project.bayId,
  createdAt: c.createdAt,
  sessions: c.createdById === SESSIONS_CREATOR,
});

/** The open group chats of the credential's Bay that the person takes part in (B-314: "your groups"). */
export async function personGroups(tx: Db | Tx, device: DeviceCaller): Promise<Room[]> {
  const rows = await tx.participation.findMany({
    where: {
      memberId: device.id,
      leftAt: null,
      conversation: { kind: "group", closedAt: null, project: { bayId: device.bay.id, archivedAt: null } },
    },
    select: { conversation: { select: ROOM_SELECT } },
    orderBy: { joinedAt: "asc" },
  });
  return rows.map((r) => roomOf(r.conversation));
}

/** The Bay's `sessions` project, made on first use with the person in it (v1.9); the person joins it. */
export async function sessionsProject(tx: Tx, device: DeviceCaller, homeBayId: string) {
  const where = { bayId_slug: { bayId: device.bay.id, slug: SESSIONS_PROJECT_SLUG } };
  const home = device.bay.id === homeBayId;
  let project = await tx.project.findUnique({ where, select: { id: true, archivedAt: true } });
  // Review: the Bay's own people make and enter it; a guest of one project there is no member of
  // the Bay's sessions project unless its people let them in (POST …/members).
  const guestsRefused = () =>
    HubError.forbidden(
      "not_your_bay",
      "the Sessions group and private session chats are for the Bay's own people: join a group you are in by id or title",
    );
  if (!project) {
    if (!home) throw guestsRefused();
    await tx.project.createMany({
      data: [
        {
          id: `prj-${device.bay.name}-${SESSIONS_PROJECT_SLUG}-${randomBytes(4).toString("hex")}`,
          bayId: device.bay.id,
          slug: SESSIONS_PROJECT_SLUG,
          name: "Sessions",
        },
      ],
      skipDuplicates: true,
    });
    project = await tx.project.findUniqueOrThrow({ where, select: { id: true, archivedAt: true } });
  }
  if (project.archivedAt) throw new HubError("project_closed", "the Bay's sessions project is archived");
  const membership = await tx.membership.findUnique({
    where: { projectId_memberId: { projectId: project.id, memberId: device.id } },
    select: { status: true },
  });
  if (membership && membership.status !== "active")
    throw HubError.forbidden("removed_by_admin", "the sessions project's admins removed you from it");
  if (!membership) {
    if (!home) throw guestsRefused();
    // The first of the Bay's people holds members:admin; a concurrent first join makes one row.
    const first = (await tx.membership.count({ where: { projectId: project.id } })) === 0;
    await tx.membership.createMany({
      data: [
        {
          projectId: project.id,
          memberId: device.id,
          memberKind: "human",
          permissions: first ? ["members:admin"] : [],
        },
      ],
      skipDuplicates: true,
    });
  }
  return { id: project.id, ref: { owner: device.bay.name, slug: SESSIONS_PROJECT_SLUG } };
}

/** The Bay's shared Sessions group (v1.9, B-321), made on first use; the person is put in it. */
export async function sessionsGroup(
  tx: Tx,
  device: DeviceCaller,
  projectId: string,
): Promise<{ room: Room; bus: BusMessage[] }> {
  // Under the append lock: two first joins at once make one group, not two.
  const head = await lockLog(tx);
  const bus: BusMessage[] = [];
  let found = await tx.conversation.findFirst({
    where: { projectId, kind: "group", createdById: SESSIONS_CREATOR, closedAt: null },
    select: ROOM_SELECT,
    orderBy: { createdAt: "asc" },
  });
  if (!found) {
    const created = await tx.conversation.create({
      data: {
        projectId,
        publicId: `pending-sessions-${randomBytes(8).toString("hex")}`,
        kind: "group",
        title: SESSIONS_GROUP_TITLE,
        createdById: SESSIONS_CREATOR,
      },
      select: { id: true, number: true },
    });
    found = await tx.conversation.update({
      where: { id: created.id },
      data: { publicId: `cnv-${String(created.number).padStart(4, "0")}` },
      select: ROOM_SELECT,
    });
    bus.push(
      await appendConversationEvent(tx, head, {
        kind: "conversation_created",
        projectId,
        conversationKey: found.id,
        publicId: found.publicId,
        fromId: device.id,
        payload: { conversation: await payloadView(tx, found.id) },
        audience: [],
      }),
    );
  }
  const room = roomOf(found);
  const entered = await enterGroup(tx, room, device.id, device.id, { uncapped: true });
  if (entered) bus.push(entered);
  return { room, bus };
}

/** A session's private chat with its person: its direct conversation in the project (§9.1). */
export async function directRoom(tx: Tx, projectId: string, sessionId: string): Promise<Room> {
  const row = await tx.conversation.findUniqueOrThrow({
    where: { projectId_publicId: { projectId, publicId: sessionId } },
    select: ROOM_SELECT,
  });
  return roomOf(row);
}

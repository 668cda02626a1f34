import { groupConversationId } from "@maity/domain";
import type { Db } from "@maity/db";
import type { Hub } from "./index.ts";

export const DEMO_LOGINS = [
  { handle: "maintainer", name: "Maintainer", password: "maintainer-demo" },
  { handle: "guest", name: "Guest", password: "guest-demo" },
] as const;

/** The spec's example (§9): seeded on first start with an empty database. Returns false when not empty. */
export async function seedDemo(hub: Hub): Promise<boolean> {
  const db: Db = hub.db;
  if ((await db.human.count()) > 0) return false;
  for (const login of DEMO_LOGINS) await hub.admin.createHuman(login);
  await hub.admin.createProject({ owner: "maintainer", slug: "maity", name: "Maity" });
  const ref = { owner: "maintainer", slug: "maity" };
  await hub.admin.addMember(ref, { member_id: "hum-guest" });
  const a = await hub.admin.createAgent({ owner: "maintainer", handle: "agent-a", description: "Builds and reviews the hub's API contract." });
  const x = await hub.admin.createAgent({ owner: "guest", handle: "agent-x", description: "Release checks and changelogs." });
  await hub.admin.addMember(ref, { member_id: a.id });
  await hub.admin.addMember(ref, { member_id: x.id });

  const maintainer = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
  const guest = { kind: "human" as const, id: "hum-guest", handle: "guest", name: "Guest" };
  const agentA = { kind: "agent" as const, id: a.id, handle: a.handle, ownerId: a.owner_id, instanceId: null };
  await hub.direct.post(maintainer, ref, a.id, { body: "Morning! Can you look over the conversations API?" });
  await hub.direct.post(agentA, ref, a.id, { body: "On it. The list shape matches §9.3; I will check the bands next." });
  await hub.direct.post(maintainer, ref, a.id, { body: "How far is the API contract?" });
  await hub.direct.post(guest, ref, x.id, { body: "Please draft the 0.2 changelog." });

  // The group chat of §9.2 (the group-chat service arrives with the conversations issue; the rows are the same).
  await db.$transaction(async (tx) => {
    const project = await tx.project.findFirstOrThrow({ where: { slug: "maity", bay: { handle: "maintainer" } }, select: { id: true } });
    const chat = await tx.conversation.create({
      data: { projectId: project.id, publicId: "pending", kind: "group", title: "Release 0.2 go/no-go", createdById: "hum-maintainer" },
      select: { id: true, number: true },
    });
    const publicId = groupConversationId(chat.number);
    await tx.conversation.update({ where: { id: chat.id }, data: { publicId } });
    const participants = [
      ["hum-maintainer", "human"],
      [a.id, "agent"],
      [x.id, "agent"],
    ] as const;
    for (const [memberId, memberKind] of participants) await tx.participation.create({ data: { conversationId: chat.id, memberId, memberKind } });
    const body = "@agent-a can we tag today?";
    const event = await tx.event.create({
      data: {
        kind: "message",
        type: "chat",
        projectId: project.id,
        conversationId: chat.id,
        fromId: "hum-maintainer",
        toId: publicId,
        body,
        mentions: [{ member_id: a.id, handle: "agent-a", field: "body", offset: 0, length: 8 }],
        audience: { create: participants.map(([memberId]) => ({ memberId })) },
        verdicts: { create: [ { agentId: a.id, shouldRespond: true, reason: "mentioned" }, { agentId: x.id, shouldRespond: false, reason: "not_mentioned" } ] },
      },
      select: { seq: true, sentAt: true },
    });
    await tx.conversation.update({ where: { id: chat.id }, data: { lastSeq: event.seq, lastMessageAt: event.sentAt } });
    await tx.participation.updateMany({ where: { conversationId: chat.id, memberId: "hum-maintainer" }, data: { readMarkerSeq: event.seq } });
  });
  return true;
}

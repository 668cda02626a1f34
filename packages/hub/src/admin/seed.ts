import type { Db } from "@maity/db";
import type { AdminService } from "./service.ts";
import type { GroupService } from "../conversations/groups.ts";
import type { MessagesService } from "../messages/service.ts";

export const DEMO_LOGINS = [
  { handle: "maintainer", name: "Maintainer", password: "maintainer-demo" },
  { handle: "guest", name: "Guest", password: "guest-demo" },
] as const;

/** The spec's example (§9): seeded on first start with an empty database. Returns false when not empty. */
/** The services the seed writes through (the hub's own, so the demo obeys every rule). */
export interface SeedServices {
  db: Db;
  admin: AdminService;
  messages: MessagesService;
  groups: GroupService;
}

export async function seedDemo(hub: SeedServices): Promise<boolean> {
  const db: Db = hub.db;
  if ((await db.human.count()) > 0) return false;
  for (const login of DEMO_LOGINS) await hub.admin.createHuman(login);
  await hub.admin.createProject({ owner: "maintainer", slug: "maity", name: "Maity" });
  const ref = { owner: "maintainer", slug: "maity" };
  await hub.admin.addMember(ref, { member_id: "hum-guest" });
  const a = await hub.admin.createAgent({
    owner: "maintainer",
    handle: "agent-a",
    description: "Builds and reviews the hub's API contract.",
  });
  const x = await hub.admin.createAgent({
    owner: "guest",
    handle: "agent-x",
    description: "Release checks and changelogs.",
  });
  await hub.admin.addMember(ref, { member_id: a.id });
  await hub.admin.addMember(ref, { member_id: x.id });

  const maintainer = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
  const guest = { kind: "human" as const, id: "hum-guest", handle: "guest", name: "Guest" };
  const agentA = { kind: "agent" as const, id: a.id, handle: a.handle, ownerId: a.owner_id, instanceId: null };
  await hub.messages.post(maintainer, ref, a.id, { body: "Morning! Can you look over the conversations API?" });
  await hub.messages.post(agentA, ref, a.id, {
    body: "On it. The list shape matches §9.3; I will check the bands next.",
  });
  await hub.messages.post(maintainer, ref, a.id, { body: "How far is the API contract?" });
  await hub.messages.post(guest, ref, x.id, { body: "Please draft the 0.2 changelog." });

  // The group chat of §9.2's example.
  // agent-x is guest's, a visitor here (DESIGN §4c): the operator places it on its sponsor's behalf.
  const chat = await hub.groups.create(
    maintainer,
    ref,
    { title: "Release 0.2 go/no-go", participants: [a.id, x.id] },
    null,
    { operator: true },
  );
  await hub.messages.post(maintainer, ref, chat.view.id, { body: "@agent-a can we tag today?" });
  return true;
}

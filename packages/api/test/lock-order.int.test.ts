import { freshDatabase } from "@maity/db/testing";
import { createHub, type HumanCaller } from "@maity/hub";
import { afterAll, expect, it } from "vitest";

// Lock order (docs/development.md "Counters"): the append lock, then participations and the
// conversation's row, then events. A manager's rename or policy change (§9.2, 004 §4) racing chat
// writes in the same chat must never deadlock: on PostgreSQL a rename that locked the conversation's
// row before the append lock, while a write held the lock and updated that row, was a deadlock (one
// of the two refused with a 500). Every call here must succeed, and each rename be one event.

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

it("M-098 a rename racing chat writes in the same chat: every call succeeds, none deadlocks", async () => {
  const database = await freshDatabase();
  const hub = createHub(database, { pingRate: { pings: 1_000_000, windowSeconds: 60 } });
  closers.push(() => hub.close());
  const ref = { owner: "ann", slug: "lab" };
  const people: HumanCaller[] = [];
  for (const handle of ["ann", "ben", "cai"]) {
    const h = await hub.admin.createHuman({ handle, name: handle.toUpperCase(), password: "password-123" });
    people.push({ kind: "human", id: h.id, handle, name: handle.toUpperCase() });
  }
  await hub.admin.createProject({ owner: "ann", slug: "lab", name: "Lab" });
  for (const p of people.slice(1)) await hub.admin.addMember(ref, { member_id: p.id });
  const [ann, ben, cai] = people as [HumanCaller, HumanCaller, HumanCaller];
  const chat = (await hub.groups.create(ann, ref, { title: "Race", participants: [ben.id, cai.id] })).view.id;
  const rounds = 25;
  const outcomes = await Promise.allSettled(
    Array.from({ length: rounds }, async (_, i) => {
      await Promise.all([
        hub.groups.update(ann, ref, chat, { title: `Race ${i}` }),
        hub.messages.post(ben, ref, chat, { body: `from ben ${i}` }),
        hub.messages.post(cai, ref, chat, { body: `from cai ${i}` }),
      ]);
    }),
  );
  expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
  const events = await hub.db.event.groupBy({
    by: ["kind"],
    where: { conversation: { publicId: chat } },
    _count: { _all: true },
  });
  const count = (kind: string) => events.find((e) => e.kind === kind)?._count._all ?? 0;
  expect(count("message")).toBe(2 * rounds);
  expect(count("conversation_updated")).toBe(rounds);
});

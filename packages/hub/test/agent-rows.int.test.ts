import { freshDatabase } from "@maity/db/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createHub, seedDemo } from "../src/index.ts";
import { agentMessageSelect, readAgentMessageRows } from "../src/messages/agentView.ts";
import { rawOf } from "../src/raw.ts";

// The fan-out's paths read a message's agent view by seq in one hand-written statement
// (readAgentMessageRows); the other reads use Prisma's agentMessageSelect. Both must give the same
// rows for every kind of row the log holds, on both engines (004 §5: one view of a message).
const db = await freshDatabase();
const hub = await createHub(db);
afterAll(() => hub.close());

describe("a message's agent view, read by hand and by Prisma", () => {
  it("the same rows: redacted, with a card, files, metadata, a reply, events outside any conversation", async () => {
    await seedDemo(hub);
    const messages = await db.prisma.event.findMany({
      where: { kind: "message" },
      orderBy: { seq: "asc" },
      select: { seq: true, fromId: true },
    });
    expect(messages.length).toBeGreaterThan(4);
    const [a, b, c, d] = messages as [
      (typeof messages)[0],
      (typeof messages)[0],
      (typeof messages)[0],
      (typeof messages)[0],
    ];
    await db.sql.query(`INSERT INTO redactions (event_seq, by_id, reason, at) VALUES ($1, $2, 'spam', now())`, [
      a.seq,
      a.fromId,
    ]);
    await db.sql.query(`UPDATE events SET redacted = true, body = NULL WHERE seq = $1`, [a.seq]);
    await db.sql.query(
      `UPDATE events SET card = '{"type":"card.calendar","payload":{"title":"Review","attendees":[]}}'::jsonb,
         metadata = '{"type":"card.calendar","n":[1,2.5,null]}'::jsonb WHERE seq = $1`,
      [b.seq],
    );
    await db.sql.query(
      `UPDATE events SET attachments = '[{"id":"att-1","name":"a.png","size":12}]'::jsonb, reply_to_seq = $2 WHERE seq = $1`,
      [c.seq, b.seq],
    );
    await db.sql.query(`UPDATE events SET mentions = '["agt-a","hum-x"]'::jsonb WHERE seq = $1`, [d.seq]);
    const project = (await db.prisma.project.findFirstOrThrow({ select: { id: true } })).id;
    await db.sql.query(`INSERT INTO events (kind, project_id, from_id) VALUES ('project_event', $1, $2)`, [
      project,
      a.fromId,
    ]);
    const all = (await db.prisma.event.findMany({ select: { seq: true }, orderBy: { seq: "asc" } })).map((e) => e.seq);
    expect(await db.prisma.event.count({ where: { conversationId: null } })).toBeGreaterThan(0);
    const prisma = await db.prisma.event.findMany({
      where: { seq: { in: all } },
      orderBy: { seq: "asc" },
      select: agentMessageSelect,
    });
    const asked = [...all, 999_999];
    expect(await readAgentMessageRows(rawOf(db.sql), asked)).toEqual(prisma);
    expect(await readAgentMessageRows(db.prisma, asked)).toEqual(prisma);
    expect(await readAgentMessageRows(rawOf(db.sql), [])).toEqual([]);
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../src/testing.ts";

// The raw runner prepares each statement once (named statements; src/prepared.ts on PGlite): the
// answers must be what an unprepared statement gives, whatever the parameters, on both engines.
const db = await freshDatabase();
afterAll(() => db.close());

await db.sql.exec(`CREATE TABLE prep_probe (id int PRIMARY KEY, name text, tags text[], at timestamp(3), doc jsonb)`);
const insert =
  "INSERT INTO prep_probe (id, name, tags, at, doc) VALUES ($1, $2, $3::text[], $4::timestamp, $5::jsonb) RETURNING id";
const select = "SELECT id, name, tags, at, doc FROM prep_probe WHERE id = ANY($1::int[]) ORDER BY id";

describe("the raw runner's prepared statements", () => {
  it("binds text, integers, arrays, nulls, timestamps (read back as UTC) and json, again and again", async () => {
    for (let id = 1; id <= 8; id++) {
      const name = id % 3 === 0 ? null : `name ${id} with 'quotes' and ünïcode`;
      const rows = await db.sql.query<{ id: number }>(insert, [
        id,
        name,
        [`a${id}`, "b,c", 'd"e'],
        `2026-12-04T10:00:0${id}.123Z`,
        JSON.stringify({ n: id }),
      ]);
      expect(rows).toEqual([{ id }]);
    }
    const rows = await db.sql.query<{ id: number; name: string | null; tags: string[]; at: Date; doc: unknown }>(
      select,
      [[2, 3, 99]],
    );
    expect(rows).toEqual([
      {
        id: 2,
        name: "name 2 with 'quotes' and ünïcode",
        tags: ["a2", "b,c", 'd"e'],
        at: new Date("2026-12-04T10:00:02.123Z"),
        doc: { n: 2 },
      },
      { id: 3, name: null, tags: ["a3", "b,c", 'd"e'], at: new Date("2026-12-04T10:00:03.123Z"), doc: { n: 3 } },
    ]);
    expect(await db.sql.query(select, [[]])).toEqual([]);
  });

  it("an error names its cause, rolls the transaction back, and leaves the statement usable", async () => {
    await expect(
      db.sql.transaction(async (tx) => {
        await tx.query(insert, [100, "kept?", [], "2026-12-04T10:00:00.000Z", "{}"]);
        await tx.query(insert, [1, "duplicate", [], "2026-12-04T10:00:00.000Z", "{}"]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await db.sql.query(select, [[100]])).toEqual([]);
    await db.sql.transaction(async (tx) => {
      await tx.query(insert, [100, "written", [], "2026-12-04T10:00:00.000Z", "{}"]);
    });
    expect((await db.sql.query<{ name: string }>(select, [[100]]))[0]?.name).toBe("written");
  });

  it("follows a change of the table's schema (the plan is replaced, not stale)", async () => {
    const count = "SELECT count(*)::int AS n FROM prep_probe WHERE name IS NOT NULL";
    const before = (await db.sql.query<{ n: number }>(count))[0]?.n ?? 0;
    await db.sql.exec(`CREATE INDEX prep_probe_name ON prep_probe (name)`);
    await db.sql.query(insert, [200, "after the index", [], "2026-12-04T10:00:00.000Z", "{}"]);
    expect((await db.sql.query<{ n: number }>(count))[0]?.n).toBe(before + 1);
  });
});

describe("Prisma's statements on PGlite, prepared", () => {
  it.skipIf(db.engine !== "pglite")(
    "a read answers what it answered unprepared (dates, json, nulls, relations), on a named statement",
    async () => {
      await db.prisma.bay.create({ data: { id: "bay-prep", handle: "prep" } });
      for (const i of [1, 2, 3])
        await db.prisma.human.create({
          data: { id: `hum-prep-${i}`, handle: `prep${i}`, displayName: `Prep ${i}`, bayId: "bay-prep" },
        });
      const read = () =>
        db.prisma.human.findMany({
          where: { id: { in: ["hum-prep-1", "hum-prep-3", "hum-missing"] } },
          select: {
            id: true,
            displayName: true,
            meatProxyNote: true,
            createdAt: true,
            bay: { select: { handle: true } },
          },
          orderBy: { id: "asc" },
        });
      const first = await read();
      expect(first).toMatchObject([
        { id: "hum-prep-1", displayName: "Prep 1", meatProxyNote: null, bay: { handle: "prep" } },
        { id: "hum-prep-3", displayName: "Prep 3", meatProxyNote: null, bay: { handle: "prep" } },
      ]);
      expect(first[0]?.createdAt).toBeInstanceOf(Date);
      expect(Math.abs((first[0]?.createdAt.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
      expect(await read()).toEqual(first);
      const named = await db.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'prisma_%'",
      );
      expect(named[0]?.n).toBeGreaterThan(0);
      // A refusal keeps PostgreSQL's code through the prepared path, as the adapter reports it unprepared.
      await expect(
        db.prisma.human.create({ data: { id: "hum-prep-1", handle: "again", displayName: "x", bayId: "bay-prep" } }),
      ).rejects.toMatchObject({ cause: { code: "23505" } });
    },
  );
});

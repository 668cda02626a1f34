import type { Db } from "@maity/db";
import type { BlobStore } from "./store.ts";

// B-197: an upload never sent (no message, not in a project's library) is deleted after 24 h, bytes and
// row. A blob no live row names (a crash between the bytes and the row, a failed delete) is an orphan
// once it is an hour old — younger ones may belong to an upload whose row is being written.

export const ORPHAN_AGE_MS = 3600 * 1000;
/** How often a server sweeps (hub.start). */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const BATCH = 500;

export async function sweepFiles(
  db: Db,
  store: BlobStore,
  now: Date,
  unsentTtlMs: number,
): Promise<{ unsent: number; orphans: number }> {
  let unsent = 0;
  const before = new Date(now.getTime() - unsentTtlMs);
  // Bounded: each round deletes what it read, so the next reads the rest.
  for (;;) {
    const rows = await db.attachment.findMany({
      where: { eventSeq: null, libraryProjectId: null, deletedAt: null, createdAt: { lt: before } },
      select: { id: true, blobKey: true },
      take: BATCH,
    });
    if (!rows.length) break;
    // The row goes only if it is still unsent (a send may link it right now).
    const { count } = await db.attachment.deleteMany({
      where: { id: { in: rows.map((r) => r.id) }, eventSeq: null, libraryProjectId: null },
    });
    unsent += count;
    const still = new Set(
      (await db.attachment.findMany({ where: { id: { in: rows.map((r) => r.id) } }, select: { id: true } })).map(
        (r) => r.id,
      ),
    );
    for (const row of rows) if (!still.has(row.id)) await store.delete(row.blobKey).catch(() => {});
    if (rows.length < BATCH) break;
  }

  let orphans = 0;
  const oldEnough = now.getTime() - ORPHAN_AGE_MS;
  let batch: string[] = [];
  const flush = async () => {
    const named = new Set(
      (
        await db.attachment.findMany({
          where: { blobKey: { in: batch }, deletedAt: null },
          select: { blobKey: true },
        })
      ).map((r) => r.blobKey),
    );
    for (const key of batch)
      if (!named.has(key)) {
        await store.delete(key).catch(() => {});
        orphans++;
      }
    batch = [];
  };
  for await (const blob of store.list("attachments/")) {
    if (blob.writtenAt.getTime() >= oldEnough) continue;
    batch.push(blob.key);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length) await flush();
  return { unsent, orphans };
}

import {
  decodeUpdatesCursor,
  type deviceUpdatesOutput,
  encodeUpdatesCursor,
  HubError,
  seqOfMessageId,
  type UpdatesEvent,
} from "@maity/domain";
import type { z } from "zod";
import type { Db } from "@maity/db";
import type { DeviceCaller } from "../access/caller.ts";
import { logHead } from "../delivery/append.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { readAgentMessageRows, renderForAgent, toUpdatesEvent } from "../messages/agentView.ts";

// The device feed (004 v1.13, v1.23; B-331): `GET /api/device-api/updates` long-polls the messages of
// every live session the device hosts in its Bay — each event naming its session — with the
// device's Codex registrations beside them. One cursor over the hub's log (a position, never a time).
// Handing a message over is not a read: nothing is marked delivered or read (v1.23); the session's
// own get_messages is.

const BATCH_MAX = 100;

/** The answer, typed by the route's own schema. */
export type DeviceUpdates = z.output<typeof deviceUpdatesOutput>;

export function deviceFeed(db: Db, bus: LiveBus) {
  async function hostedBy(device: DeviceCaller) {
    return db.agentSession.findMany({
      where: { humanId: device.id, bayId: device.bay.id, deviceId: device.deviceId, endedAt: null },
      select: { agentId: true, name: true, runtime: true, threadId: true, registeredAt: true },
    });
  }

  /** The hosted sessions' message seqs after `after`, oldest first, at most BATCH_MAX. */
  async function seqsAfter(ids: string[], after: number) {
    return db.$queryRawUnsafe<{ seq: number; member_id: string }[]>(
      `SELECT a.event_seq AS seq, a.member_id FROM event_audience a JOIN events e ON e.seq = a.event_seq
       WHERE a.member_id = ANY($1::text[]) AND a.event_seq > $2 AND e.kind = 'message'
       ORDER BY a.event_seq, a.member_id LIMIT $3`,
      ids,
      after,
      BATCH_MAX,
    );
  }

  return {
    /** GET /api/device-api/updates: held up to `wait` seconds for the hosted sessions' next messages. */
    async updates(
      device: DeviceCaller,
      q: { cursor?: string | undefined; wait: number },
      signal?: AbortSignal,
    ): Promise<DeviceUpdates> {
      let after: number;
      if (q.cursor !== undefined && q.cursor !== "") {
        const decoded = decodeUpdatesCursor(q.cursor);
        if (decoded === null)
          throw HubError.invalid({ cursor: "bad_cursor" }, "the cursor is not one this feed gave out");
        after = decoded;
      } else after = await logHead(db); // no cursor: from now (never a back-dump)
      const hosted = await hostedBy(device);
      const registrations = hosted.flatMap((s) =>
        s.runtime === "codex" && s.threadId && s.registeredAt
          ? [
              {
                session: s.name,
                runtime: "codex" as const,
                threadId: s.threadId,
                registeredAt: s.registeredAt.toISOString(),
              },
            ]
          : [],
      );
      const names = new Map(hosted.map((s) => [s.agentId, s.name]));
      const ids = [...names.keys()];
      const until = Date.now() + q.wait * 1000;
      for (;;) {
        // Listen first, then read: a message written between the read and the wait still wakes it.
        let woken: () => void = () => undefined;
        const wake = new Promise<void>((resolve) => {
          woken = resolve;
        });
        const stop = bus.subscribe((m) => {
          if (m.type === "event" && m.audience.some((id) => names.has(id))) woken();
        });
        try {
          let found = ids.length ? await seqsAfter(ids, after) : [];
          // A full batch may end inside one message's sessions: that message goes whole in the next.
          if (found.length === BATCH_MAX) {
            const top = Math.max(...found.map((f) => Number(f.seq)));
            if (found.some((f) => Number(f.seq) !== top)) found = found.filter((f) => Number(f.seq) !== top);
          }
          if (found.length) {
            const events: DeviceUpdates["events"] = [];
            const rows = await readAgentMessageRows(db, [...new Set(found.map((f) => Number(f.seq)))]);
            for (const id of ids) {
              const mine = new Set(found.filter((f) => f.member_id === id).map((f) => Number(f.seq)));
              const rendered = await renderForAgent(
                db,
                id,
                rows.filter((r) => mine.has(r.seq)),
              );
              for (const r of rendered) events.push({ ...toUpdatesEvent(r), session: names.get(id) ?? "" });
            }
            const seqOf = (e: UpdatesEvent) => seqOfMessageId(e.message.id) ?? 0;
            events.sort((a, b) => seqOf(a) - seqOf(b));
            const last = Math.max(...found.map((f) => Number(f.seq)));
            return { cursor: encodeUpdatesCursor(last), events, registrations };
          }
          const left = until - Date.now();
          if (left <= 0 || signal?.aborted) return { cursor: encodeUpdatesCursor(after), events: [], registrations };
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(left, 5000));
            const done = () => {
              clearTimeout(timer);
              resolve();
            };
            void wake.then(done);
            signal?.addEventListener("abort", done, { once: true });
          });
        } finally {
          stop();
        }
      }
    },
  };
}
export type DeviceFeed = ReturnType<typeof deviceFeed>;

import { describe, expect, it } from "vitest";
import { LiveBus, type LogEvent } from "../src/delivery/bus.ts";
import { ev } from "./log-events.ts";
import { type Delivered, Subscription, subscribe, type Tracked } from "../src/delivery/subscription.ts";

// DESIGN §1, §5: one way into the live fan-out. Listen first, then backfill, items tracked at
// their log position; the dashboard feed, /updates and /ws are built on it (their own tests cover
// the wire). These tests pin the mechanics: nothing published during the backfill is lost or
// doubled, a side item sits at the position handed out, a resync says "listening" again.

async function busAt(head: number): Promise<LiveBus> {
  const bus = new LiveBus();
  bus.attach(
    async () => head,
    async () => [],
  );
  await bus.ready();
  return bus;
}

const asSeq = (e: LogEvent) => e.seq;

describe("Subscription", () => {
  it("hands on only the member's events after the head, each once, dropping what the position covers", async () => {
    const bus = await busAt(10);
    const sub = await Subscription.open(bus, { memberId: "agt-a", event: asSeq });
    expect(sub.head).toBe(10);
    bus.publish(ev(11, 10));
    bus.publish(ev(12, 11, ["agt-b"])); // not in its audience
    bus.publish(ev(13, 12));
    bus.publish(ev(14, 13));
    // The caller's backfill covered up to 13 (e.g. a catch-up read of the log).
    sub.position = 13;
    expect(await sub.take()).toEqual([{ position: 14, item: 14 }]);
    expect(sub.position).toBe(14);
    sub.stop();
    await bus.close();
  });

  it("take(max) hands on at most max items, the rest stay for the next call, in order", async () => {
    const bus = await busAt(0);
    const sub = await Subscription.open(bus, { memberId: "agt-a", event: asSeq });
    for (let seq = 1; seq <= 5; seq++) bus.publish(ev(seq, seq - 1));
    expect((await sub.take(2)).map((t) => t.position)).toEqual([1, 2]);
    expect((await sub.take(10)).map((t) => t.position)).toEqual([3, 4, 5]);
    sub.stop();
    await bus.close();
  });

  it("wait answers pending at once when something waits, timeout when nothing comes, aborted once stopped", async () => {
    const bus = await busAt(0);
    const sub = await Subscription.open(bus, { memberId: "agt-a", event: asSeq });
    expect(await sub.wait(5)).toBe("timeout");
    const waiting = sub.wait(60_000);
    bus.publish(ev(1, 0));
    expect(await waiting).toBe("pending");
    expect(await sub.wait(60_000)).toBe("pending");
    await sub.take();
    const held = sub.wait(60_000);
    sub.stop();
    expect(await held).toBe("aborted");
    expect(await sub.wait(60_000)).toBe("aborted");
    await bus.close();
  });
});

describe("subscribe: the stream", () => {
  async function collect(stream: AsyncGenerator<Delivered<string>>, count: number): Promise<Delivered<string>[]> {
    const out: Delivered<string>[] = [];
    for await (const d of stream) {
      out.push(d);
      if (out.length === count) break;
    }
    return out;
  }

  it("a resume backfills (after, head] in pages, says listening, then live events; one published meanwhile is neither lost nor doubled", async () => {
    const bus = await busAt(20);
    const controller = new AbortController();
    const asked: [number, number][] = [];
    const stream = subscribe<string>(bus, {
      memberId: "agt-a",
      after: 15,
      page: 2,
      signal: controller.signal,
      event: (e) => `live ${e.seq}`,
      backfill: async (after, upTo): Promise<Tracked<string>[]> => {
        asked.push([after, upTo]);
        // While the log is read, event 21 is published: the subscription already listens.
        if (asked.length === 1) bus.publish(ev(21, 20));
        const seqs = [16, 17, 18, 19, 20].filter((s) => s > after && s <= upTo).slice(0, 2);
        return seqs.map((s) => ({ position: s, item: `log ${s}` }));
      },
    });
    const got = await collect(stream, 7);
    expect(got).toEqual([
      { position: 16, item: "log 16" },
      { position: 17, item: "log 17" },
      { position: 18, item: "log 18" },
      { position: 19, item: "log 19" },
      { position: 20, item: "log 20" },
      { position: 20, listening: true },
      { position: 21, item: "live 21" },
    ]);
    expect(asked).toEqual([
      [15, 20],
      [17, 20],
      [19, 20],
    ]);
    controller.abort();
    await bus.close();
  });

  it("side items are tracked at the position handed out; a resync says listening again; abort ends the stream", async () => {
    const bus = await busAt(5);
    const controller = new AbortController();
    const stream = subscribe<string>(bus, {
      memberId: "agt-a",
      after: null,
      page: 100,
      signal: controller.signal,
      event: (e) => `event ${e.seq}`,
      side: async (m) => (m.type === "typing" ? `typing ${m.memberId}` : null),
      backfill: async () => {
        throw new Error("no backfill without a resume point");
      },
    });
    const first = await stream.next();
    expect(first.value).toEqual({ position: 5, listening: true });
    bus.publish(ev(6, 5));
    bus.publish({
      type: "typing",
      conversationId: "cnv-1",
      project: { owner: "o", slug: "s" },
      memberId: "agt-x",
      audience: ["agt-a"],
    });
    bus.publish({
      type: "typing",
      conversationId: "cnv-2",
      project: { owner: "o", slug: "s" },
      memberId: "agt-y",
      audience: ["agt-b"], // not in its audience
    });
    expect((await stream.next()).value).toEqual({ position: 6, item: "event 6" });
    expect((await stream.next()).value).toEqual({ position: 6, item: "typing agt-x" });
    (bus as unknown as { emitter: { emit(name: string): void } }).emitter.emit("resync");
    expect((await stream.next()).value).toEqual({ position: 6, listening: true });
    const ending = stream.next();
    controller.abort();
    expect((await ending).done).toBe(true);
    await bus.close();
  });
});

import { describe, expect, it } from "vitest";
import { GAP_WAIT_MS, LiveBus, type LogEvent } from "../src/delivery/bus.ts";
import { ev } from "./log-events.ts";

// DESIGN §1: the bus hands the log's events on in seq order, each once, whatever order
// their publishes arrive in (concurrent requests, other instances' NOTIFYs); a link missing for a
// moment is read from the log once per process.

async function busAt(head: number, loader: (after: number, upTo: number) => Promise<LogEvent[]> = async () => []) {
  const bus = new LiveBus();
  bus.attach(async () => head, loader);
  await bus.ready();
  const seen: number[] = [];
  const follower = bus.follow((e) => seen.push(e.seq));
  return { bus, seen, follower };
}

describe("LiveBus: the ordered log", () => {
  it("delivers out-of-order publishes in seq order, each once; the follower starts at the process's head", async () => {
    const { bus, seen, follower } = await busAt(10);
    expect(follower.head).toBe(10);
    bus.publish(ev(13, 12));
    bus.publish(ev(12, 11));
    expect(seen).toEqual([]);
    bus.publish(ev(11, 10));
    expect(seen).toEqual([11, 12, 13]);
    bus.publish(ev(12, 11)); // a NOTIFY echo or a repeat
    bus.publish(ev(9, 8)); // older than the head
    expect(seen).toEqual([11, 12, 13]);
    await bus.close();
  });

  it("a hole in the seqs (a rolled-back append) is no gap: prev names the last event that exists", async () => {
    const { bus, seen } = await busAt(10);
    bus.publish(ev(11, 10));
    bus.publish(ev(14, 11)); // 12 and 13 were drawn and rolled back
    expect(seen).toEqual([11, 14]);
    await bus.close();
  });

  it("a link that never arrives is read from the log once, after a short wait, then the rest follows", async () => {
    const loads: [number, number][] = [];
    const { bus, seen } = await busAt(10, async (after, upTo) => {
      loads.push([after, upTo]);
      return [ev(11, 10), ev(12, 11)].filter((e) => e.seq > after && e.seq <= upTo);
    });
    bus.publish(ev(13, 12));
    bus.publish(ev(14, 13));
    expect(seen).toEqual([]);
    await new Promise((r) => setTimeout(r, GAP_WAIT_MS * 3));
    expect(loads).toEqual([[10, 12]]);
    expect(seen).toEqual([11, 12, 13, 14]);
    // The late NOTIFY of 12 changes nothing.
    bus.publish(ev(12, 11));
    expect(seen).toEqual([11, 12, 13, 14]);
    await bus.close();
  });

  it("a failed read of the log's head is not kept: the events wait, the next ready() reads again and hands them on", async () => {
    const bus = new LiveBus();
    let fail = true;
    bus.attach(
      async () => {
        if (fail) throw new Error("the database is away");
        return 10;
      },
      async () => [],
    );
    const seen: number[] = [];
    const errors: unknown[] = [];
    const logged = console.error;
    console.error = (...args: unknown[]) => errors.push(args[0]);
    try {
      bus.publish(ev(11, 10)); // before any head: it waits while the head is read (and the read fails)
      await new Promise((r) => setTimeout(r, 10));
      expect(errors).toEqual(["maity: reading the log's head failed"]);
      await expect(bus.ready()).rejects.toThrow("the database is away");
      fail = false;
      await bus.ready();
      bus.follow((e) => seen.push(e.seq));
      bus.publish(ev(12, 11));
      expect(seen).toEqual([12]);
      expect(bus.recent(10, 12)?.map((e) => e.seq)).toEqual([11, 12]);
    } finally {
      console.error = logged;
    }
    await bus.close();
  });

  it("keeps recent events for a listener a little behind; none when the ring does not reach back", async () => {
    const { bus } = await busAt(10);
    for (let seq = 11; seq <= 15; seq++) bus.publish(ev(seq, seq - 1));
    expect(bus.recent(12, 15)?.map((e) => e.seq)).toEqual([13, 14, 15]);
    expect(bus.recent(15, 15)).toEqual([]);
    expect(bus.recent(5, 15)).toBeNull();
    // A redaction takes the rendering out of the ring: a catch-up then reads the log.
    bus.publish({ type: "redaction", seq: 14, conversationId: "cnv-1", audience: ["agt-a"] });
    expect(bus.recent(12, 15)?.find((e) => e.seq === 14)?.agent).toBeUndefined();
    await bus.close();
  });

  it("events published before the head is known wait for it; those at or below it are dropped", async () => {
    const bus = new LiveBus();
    let release: (head: number) => void = () => {};
    bus.attach(
      () => new Promise<number>((r) => (release = r)),
      async () => [],
    );
    const ready = bus.ready();
    bus.publish(ev(20, 19));
    bus.publish(ev(21, 20));
    release(20);
    await ready;
    const seen: number[] = [];
    bus.follow((e) => seen.push(e.seq));
    bus.publish(ev(22, 21));
    expect(seen).toEqual([22]);
    expect(bus.recent(20, 22)?.map((e) => e.seq)).toEqual([21, 22]);
    await bus.close();
  });
  it("a member's follower gets only the events whose audience holds it, in seq order; it stops alone", async () => {
    const { bus, seen } = await busAt(0);
    const a: number[] = [];
    const b: number[] = [];
    const stopA = bus.follow((e) => a.push(e.seq), "agt-a");
    bus.follow((e) => b.push(e.seq), "agt-b");
    const alsoA: number[] = [];
    bus.follow((e) => alsoA.push(e.seq), "agt-a");
    bus.publish(ev(2, 1, ["agt-b"]));
    bus.publish(ev(1, 0, ["agt-a", "hum-x"]));
    bus.publish(ev(3, 2, ["agt-a", "agt-b"]));
    expect(seen).toEqual([1, 2, 3]);
    expect(a).toEqual([1, 3]);
    expect(b).toEqual([2, 3]);
    stopA.stop();
    bus.publish(ev(4, 3, ["agt-a"]));
    expect(a).toEqual([1, 3]);
    expect(alsoA).toEqual([1, 3, 4]);
  });

  it("a typed subscriber hears only its side messages; the untyped one hears every message", async () => {
    const { bus } = await busAt(0);
    const credentials: string[] = [];
    const all: string[] = [];
    bus.subscribe((m) => credentials.push(m.type), "credentials");
    bus.subscribe((m) => all.push(m.type));
    bus.publish(ev(1, 0));
    bus.publish({
      type: "typing",
      conversationId: "cnv-1",
      project: { owner: "o", slug: "s" },
      memberId: "agt-a",
      audience: [],
    });
    bus.publish({ type: "credentials", agentId: "agt-a" });
    expect(credentials).toEqual(["credentials"]);
    expect(all).toEqual(["event", "typing", "credentials"]);
  });
});

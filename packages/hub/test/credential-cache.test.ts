import type { PubSub } from "@maity/db";
import { describe, expect, it } from "vitest";
import { LiveBus } from "../src/delivery/bus.ts";
import type { Caller } from "../src/access/caller.ts";
import { type Authenticated, credentialCache } from "../src/auth/credentialCache.ts";

// DESIGN §5 (idle costs nothing): credentials kept in memory, and never past a revocation the bus
// carries — a read on its way while one is published is not kept; a dropped LISTEN connection
// (PostgreSQL) stops the cache until it is back, and it starts empty then.

const agent = (id: string): Caller => ({ kind: "agent", id, handle: id, ownerId: "hum-o", instanceId: null });
const forever = Number.POSITIVE_INFINITY;

/** A `read` that counts its calls and answers `answer` (changeable between calls). */
function reader(answer: Authenticated | null) {
  const calls = { n: 0, answer };
  return {
    calls,
    read: async () => {
      calls.n += 1;
      return calls.answer;
    },
  };
}

/** A bus on a stand-in LISTEN connection the test drops and brings back. */
async function sharedBus() {
  const hooks: { reconnect?: () => void; drop?: () => void } = {};
  const pubsub: PubSub = {
    notify: async () => {},
    listen: async (_channel, _onMessage, onReconnect, onDrop) => {
      hooks.reconnect = onReconnect;
      hooks.drop = onDrop;
      return { stop: async () => {} };
    },
  };
  const bus = new LiveBus();
  bus.attach(
    async () => 0,
    async () => [],
  );
  await bus.connect(pubsub);
  return { bus, drop: () => hooks.drop?.(), reconnect: () => hooks.reconnect?.() };
}

describe("credentialCache (DESIGN §5: idle costs nothing)", () => {
  it("serves a credential from memory after one read; an unknown one is read every time", async () => {
    const cache = credentialCache(new LiveBus(), () => true);
    const known = reader({ caller: agent("agt-a"), expiresAt: forever });
    expect((await cache.get("k1", known.read))?.caller.id).toBe("agt-a");
    expect((await cache.get("k1", known.read))?.caller.id).toBe("agt-a");
    expect(known.calls.n).toBe(1);
    const unknown = reader(null);
    expect(await cache.get("k2", unknown.read)).toBeNull();
    expect(await cache.get("k2", unknown.read)).toBeNull();
    expect(unknown.calls.n).toBe(2);
  });

  it("B-011 a credentials message drops every credential of that member, and only those", async () => {
    const bus = new LiveBus();
    const cache = credentialCache(bus, () => true);
    const a = reader({ caller: agent("agt-a"), expiresAt: forever });
    const b = reader({ caller: agent("agt-b"), expiresAt: forever });
    await cache.get("a1", a.read);
    await cache.get("a2", a.read);
    await cache.get("b1", b.read);
    a.calls.answer = null; // revoked in the database
    bus.publish({ type: "credentials", agentId: "agt-a" });
    expect(await cache.get("a1", a.read)).toBeNull();
    expect(await cache.get("a2", a.read)).toBeNull();
    expect((await cache.get("b1", b.read))?.caller.id).toBe("agt-b");
    expect(b.calls.n).toBe(1);
  });

  it("B-011 a read on its way while a revocation is published is answered but not kept", async () => {
    const bus = new LiveBus();
    const cache = credentialCache(bus, () => true);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    // The row was read just before the revocation committed; its answer arrives after the message.
    const slow = async (): Promise<Authenticated | null> => {
      reads += 1;
      if (reads === 1) {
        await gate;
        return { caller: agent("agt-a"), expiresAt: forever };
      }
      return null;
    };
    const first = cache.get("a1", slow);
    bus.publish({ type: "credentials", agentId: "agt-a" });
    release();
    expect((await first)?.caller.id).toBe("agt-a");
    expect(await cache.get("a1", slow)).toBeNull();
    expect(reads).toBe(2);
  });

  it("keeps at most `size` credentials, the least recently used going first; `size: 0` keeps none", async () => {
    const cache = credentialCache(new LiveBus(), () => true, { size: 2 });
    const r = { a: reader({ caller: agent("agt-a"), expiresAt: forever }) };
    const b = reader({ caller: agent("agt-b"), expiresAt: forever });
    const c = reader({ caller: agent("agt-c"), expiresAt: forever });
    await cache.get("a", r.a.read);
    await cache.get("b", b.read);
    await cache.get("a", r.a.read); // a is now the most recent
    await cache.get("c", c.read); // b goes
    expect(cache.size).toBe(2);
    await cache.get("a", r.a.read);
    await cache.get("b", b.read);
    expect([r.a.calls.n, b.calls.n, c.calls.n]).toEqual([1, 2, 1]);

    const none = credentialCache(new LiveBus(), () => true, { size: 0 });
    await none.get("a", r.a.read);
    await none.get("a", r.a.read);
    expect(none.size).toBe(0);
    expect(r.a.calls.n).toBe(3);
  });

  it("reads again after `ttlMs`, and never serves a session past its expiry", async () => {
    let t = 1_000_000;
    const cache = credentialCache(
      new LiveBus(),
      () => true,
      { ttlMs: 60_000 },
      () => t,
    );
    const token = reader({ caller: agent("agt-a"), expiresAt: forever });
    await cache.get("t", token.read);
    t += 59_000;
    await cache.get("t", token.read);
    expect(token.calls.n).toBe(1);
    t += 2_000;
    await cache.get("t", token.read);
    expect(token.calls.n).toBe(2);

    const session = reader({ caller: agent("hum-h"), expiresAt: t + 5_000 });
    await cache.get("s", session.read);
    t += 4_000;
    await cache.get("s", session.read);
    expect(session.calls.n).toBe(1);
    t += 1_000;
    session.calls.answer = null; // the database no longer answers an expired session
    expect(await cache.get("s", session.read)).toBeNull();
    expect(session.calls.n).toBe(2);
  });

  it("PostgreSQL: while the LISTEN connection is down nothing is served or kept; it starts empty when back", async () => {
    const { bus, drop, reconnect } = await sharedBus();
    const cache = credentialCache(bus, () => bus.hearing);
    const a = reader({ caller: agent("agt-a"), expiresAt: forever });
    await cache.get("a", a.read);
    await cache.get("a", a.read);
    expect(a.calls.n).toBe(1);
    drop();
    expect(bus.hearing).toBe(false);
    expect(cache.size).toBe(0);
    await cache.get("a", a.read);
    await cache.get("a", a.read);
    expect(a.calls.n).toBe(3);
    expect(cache.size).toBe(0);
    reconnect();
    expect(bus.hearing).toBe(true);
    await cache.get("a", a.read);
    await cache.get("a", a.read);
    expect(a.calls.n).toBe(4);
  });

  it("PostgreSQL: a read that was on its way when the connection dropped is not kept", async () => {
    const { bus, drop, reconnect } = await sharedBus();
    const cache = credentialCache(bus, () => bus.hearing);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const read = async (): Promise<Authenticated | null> => {
      reads += 1;
      if (reads === 1) await gate;
      return { caller: agent("agt-a"), expiresAt: forever };
    };
    const first = cache.get("a", read);
    drop();
    reconnect();
    release();
    await first;
    expect(cache.size).toBe(0);
    await cache.get("a", read);
    await cache.get("a", read);
    expect(reads).toBe(2);
  });
});

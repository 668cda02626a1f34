import type { LiveBus } from "../delivery/bus.ts";
import type { Caller, DeviceCaller } from "../access/caller.ts";

// Authenticated credentials kept in memory, so a request (an idle agent's /updates every 25 s, a
// dashboard call) costs no statement to authenticate (DESIGN §5: idle costs nothing). Only the
// answers the database gave are kept — never "unknown", so guessing fills nothing — and only while
// they can be dropped in time: the bus's `credentials` message (a token revoked or rotated, a
// session logged out) drops every entry of that member, on the instance that published it before
// its caller hears back, on the others when the NOTIFY arrives. While the LISTEN connection is down
// (PostgreSQL) nothing is kept or served, and everything kept is forgotten when it drops and again
// when it is back: revocations published meanwhile never arrive.

export interface CredentialCacheSettings {
  /** Credentials kept at most; the least recently used one goes first. 0 keeps none. */
  size: number;
  /** How long an entry is served after it was read from the database (a backstop for changes made outside the hub). */
  ttlMs: number;
}
export const DEFAULT_CREDENTIAL_CACHE: CredentialCacheSettings = { size: 10_000, ttlMs: 60 * 60_000 };

type Entry = { caller: Caller | DeviceCaller; readAt: number; expiresAt: number };

/** What `read` of a credential gives: the caller, and when the credential itself expires (a session). */
export type Authenticated = { caller: Caller | DeviceCaller; expiresAt: number };

export interface CredentialCache {
  /**
   * The credential `key` (a hash of the secret, never the secret) from memory, else from `read` —
   * whose answer is kept only if no member's credentials changed while it was on its way (it may
   * have read the row just before a revocation committed).
   */
  get(key: string, read: () => Promise<Authenticated | null>): Promise<Authenticated | null>;
  /** Forgets every credential of `memberId` (its tokens changed, a session of it ended). */
  forget(memberId: string): void;
  /** Forgets everything (the bus may have missed a revocation). */
  clear(): void;
  readonly size: number;
}

/**
 * `trusted` says whether a revocation published by any instance would reach this one now (in
 * process: always; PostgreSQL: while the bus's LISTEN connection holds).
 */
export function credentialCache(
  bus: LiveBus,
  trusted: () => boolean,
  settings: Partial<CredentialCacheSettings> = {},
  now: () => number = Date.now,
): CredentialCache {
  const { size, ttlMs } = { ...DEFAULT_CREDENTIAL_CACHE, ...settings };
  const entries = new Map<string, Entry>();
  /** Moves on every change of credentials: a read that started before one is not kept. */
  let epoch = 0;

  const cache: CredentialCache = {
    async get(key, read) {
      const t = now();
      const kept = entries.get(key);
      if (kept && trusted() && t - kept.readAt < ttlMs && t < kept.expiresAt) {
        // Least recently used first out: a hit moves to the end of the map's order.
        entries.delete(key);
        entries.set(key, kept);
        return { caller: kept.caller, expiresAt: kept.expiresAt };
      }
      if (kept) entries.delete(key);
      const started = epoch;
      const answer = await read();
      if (!answer || size <= 0 || started !== epoch || !trusted()) return answer;
      const caller = Object.freeze({ ...answer.caller });
      entries.set(key, { caller, readAt: now(), expiresAt: answer.expiresAt });
      for (const oldest of entries.keys()) {
        if (entries.size <= size) break;
        entries.delete(oldest);
      }
      return { caller, expiresAt: answer.expiresAt };
    },
    forget(memberId) {
      epoch += 1;
      // A person's change also drops their terminal sessions (an agent whose owner they are, DESIGN §4e).
      for (const [key, entry] of entries) {
        const { caller } = entry;
        if (caller.id === memberId || (caller.kind === "agent" && caller.ownerId === memberId)) entries.delete(key);
      }
    },
    clear() {
      epoch += 1;
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
  // Registered when the hub is made, before any stream's own listener: a stream that re-checks its
  // credential on the same message reads the database, not this cache.
  bus.subscribe((message) => {
    const member = message.type === "credentials" ? (message.agentId ?? message.humanId) : undefined;
    if (member) cache.forget(member);
  }, "credentials");
  bus.onOffline(() => cache.clear());
  bus.onResync(() => cache.clear());
  return cache;
}

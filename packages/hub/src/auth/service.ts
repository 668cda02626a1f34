import { DEVICE_TOKEN_PREFIX, HubError, type loginInput, tokenKindOf } from "@maity/domain";
import type { z } from "zod";
import type { Db, SqlExecutor } from "@maity/db";
import type { LiveBus } from "../delivery/bus.ts";
import type { AgentCaller, Caller, DeviceCaller, HumanCaller } from "../access/caller.ts";
import type { Authenticated, CredentialCache } from "./credentialCache.ts";
import { hashPassword, mintSecret, sha256, verifyPassword } from "./credentials.ts";
import { DEFAULT_LOGIN, type LoginSettings, workGate } from "./limits.ts";
import type { LoginBuckets } from "./loginLimits.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** setTimeout's longest delay (about 24.8 days): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface AuthOptions {
  /** Login limits and the hash gate (defaults DEFAULT_LOGIN). */
  login?: Partial<LoginSettings>;
  /** How long a dashboard session lasts (default SESSION_TTL_MS, 30 days). */
  sessionTtlMs?: number;
}

/** What a held or streaming read came with: a bearer token (and the instance it names) or a session cookie. */
export type Credential =
  | { token: string; instanceId?: string | null }
  | { session: string }
  /** A person's device credential acting as one of their terminal sessions (DESIGN §4e). */
  | { device: string; as: string };

/** A held or streaming read's credential, watched while the read lasts, so revocation ends it. */
export interface CredentialWatch {
  /** Aborts once the credential is revoked (a bus `credentials` message, from any instance) or expires. */
  readonly ended: AbortSignal;
  /** Whether the credential is still good now: read from the database, for what must not outlive it. */
  still(): Promise<boolean>;
  stop(): void;
}

/** Answered alike for every login limit, and for a known and an unknown handle: no handle oracle. */
const tooMany = (seconds: number) =>
  new HubError("rate_limited", `too many login attempts; try again in ${seconds} s`, {
    limit: "login",
    retry_after: seconds,
  });

type LoggedIn = { session: string; human: HumanCaller; expiresAt: Date };
const HUMAN_LOGIN = { id: true, handle: true, displayName: true, passwordHash: true } as const;

/**
 * `sql` is the driver itself: a request that authenticates reads at most one statement, and none
 * while its credential is in `cache` (credentialCache.ts). `buckets` count the login limits (shared
 * by every instance on PostgreSQL, loginLimits.ts).
 */
export function authService(
  db: Db,
  sql: SqlExecutor,
  bus: LiveBus,
  buckets: LoginBuckets,
  cache: CredentialCache,
  options: AuthOptions = {},
) {
  const settings = { ...DEFAULT_LOGIN, ...options.login };
  const sessionTtlMs = options.sessionTtlMs ?? SESSION_TTL_MS;
  // 100 concurrent logins took /api/health to 2.7 s; a few hashes at a time leave the
  // event loop (and the rest of libuv's thread pool) room to work.
  const hashes = workGate(settings.hashes, settings.queue);
  const failures = (handle: string) => ({
    // Keyed by a hash: whatever the handle's length, the key is small.
    id: `login-failures ${sha256(handle)}`,
    capacity: settings.failuresPerHandle,
    windowMs: settings.failureWindowMs,
  });

  /** A session's human and expiry: from the cache, else one statement. */
  function sessionOf(session: string, fresh: boolean): Promise<Authenticated | null> {
    const hash = sha256(session);
    const read = async (): Promise<Authenticated | null> => {
      const [row] = await sql.query<{ id: string; handle: string; display_name: string; expires_at: Date | string }>(
        `SELECT h.id, h.handle, h.display_name, s.expires_at FROM sessions s JOIN humans h ON h.id = s.human_id WHERE s.id = $1 AND s.expires_at > $2::timestamp`,
        [hash, new Date().toISOString()],
      );
      if (!row) return null;
      const expiresAt = new Date(row.expires_at).getTime();
      return { caller: { kind: "human", id: row.id, handle: row.handle, name: row.display_name }, expiresAt };
    };
    return fresh ? read() : cache.get(`session ${hash}`, read);
  }

  /** A token's caller (by its hash) from the database, in one statement. */
  async function tokenOf(hash: string, instanceId: string | null): Promise<Authenticated | null> {
    const [row] = await sql.query<TokenRow>(TOKEN_SQL, [hash, instanceId]);
    const forever = Number.POSITIVE_INFINITY;
    if (!row) return null;
    if (row.kind === "human" && row.human_id) {
      const caller: HumanCaller = {
        kind: "human",
        id: row.human_id,
        handle: row.human_handle ?? "",
        name: row.display_name ?? "",
      };
      return { caller, expiresAt: forever };
    }
    if (row.kind === "agent" && row.agent_id) {
      // DESIGN §1: X-Agent-Instance names one of the agent's instances; without it, its default one.
      // Naming another agent's (or no) instance is a wrong credential, answered like one.
      if (instanceId && !row.instance_id) return null;
      const caller: AgentCaller = {
        kind: "agent",
        id: row.agent_id,
        handle: row.agent_handle ?? "",
        ownerId: row.owner_id ?? "",
        instanceId: row.instance_id,
      };
      return { caller, expiresAt: forever };
    }
    return null;
  }

  /** A device credential's person, device and Bay (B-324), in one statement; null once revoked or gone from the Bay. */
  async function deviceOf(hash: string): Promise<Authenticated | null> {
    const [row] = await sql.query<DeviceRow>(DEVICE_SQL, [hash]);
    if (!row) return null;
    const now = Date.now();
    const used = row.last_used_at === null ? 0 : new Date(row.last_used_at).getTime();
    // "Your devices" shows when a computer was last used: kept at most once a minute.
    if (now - used > 60_000)
      await sql.query(`UPDATE devices SET last_used_at = $2::timestamp WHERE id = $1`, [
        row.device_id,
        new Date(now).toISOString(),
      ]);
    const caller: DeviceCaller = {
      kind: "device",
      id: row.human_id,
      handle: row.handle,
      name: row.display_name,
      deviceId: row.device_id,
      bay: { id: row.bay_id, name: row.bay_handle },
    };
    return { caller, expiresAt: Number.POSITIVE_INFINITY };
  }

  const service = {
    /**
     * Password login → a session secret for the cookie. A wrong handle and a wrong password answer
     * alike. The client address's and the handle's budgets are spent first (429 with
     * `retry_after`, the same for a known and an unknown handle), then the hash waits for the gate.
     */
    async login(data: z.output<typeof loginInput>, client: { address?: string | null } = {}): Promise<LoggedIn> {
      const handle = data.handle.trim().toLowerCase();
      const byAddress = await buckets.spend(`login ${client.address ?? "unknown"}`, settings.perAddress, 60_000);
      if (byAddress !== null) throw tooMany(byAddress);
      // The handle's failure is spent up front, so a burst of concurrent guesses cannot all pass
      // one check before any has failed; a login that succeeds gives it back.
      const bucket = failures(handle);
      const byHandle = await buckets.spend(bucket.id, bucket.capacity, bucket.windowMs);
      if (byHandle !== null) throw tooMany(byHandle);
      const human = await db.human.findUnique({ where: { handle }, select: HUMAN_LOGIN });
      const verdict = await hashes.run(() => verifyPassword(data.password, human?.passwordHash ?? null));
      if (!verdict) {
        // The line is full: no password was tried, so the handle's budget is not spent.
        await buckets.refund(bucket.id, bucket.capacity, bucket.windowMs);
        throw tooMany(1);
      }
      if (!human || !verdict.value) throw new HubError("unauthenticated", "wrong handle or password");
      await buckets.refund(bucket.id, bucket.capacity, bucket.windowMs);
      const { secret, hash } = mintSecret("session");
      const expiresAt = new Date(Date.now() + sessionTtlMs);
      await db.session.create({ data: { id: hash, humanId: human.id, expiresAt } });
      const caller: HumanCaller = { kind: "human", id: human.id, handle: human.handle, name: human.displayName };
      return { session: secret, human: caller, expiresAt };
    },

    /**
     * A sign-up's gates (issue 29): the client address's login budget (the same as a login's: no
     * new door for a flood), then the password hashed behind the same gate as a login's hash.
     */
    async signupHash(password: string, client: { address?: string | null } = {}): Promise<string> {
      const byAddress = await buckets.spend(`login ${client.address ?? "unknown"}`, settings.perAddress, 60_000);
      if (byAddress !== null) throw tooMany(byAddress);
      const hashed = await hashes.run(() => hashPassword(password));
      if (!hashed) throw tooMany(1);
      return hashed.value;
    },

    /** A new session for a person who just signed up (the cookie's secret, as login answers). */
    async openSession(human: HumanCaller): Promise<LoggedIn> {
      const { secret, hash } = mintSecret("session");
      const expiresAt = new Date(Date.now() + sessionTtlMs);
      await db.session.create({ data: { id: hash, humanId: human.id, expiresAt } });
      return { session: secret, human, expiresAt };
    },

    /** Password hashes running and waiting now, and the most that ran at once. */
    hashing: () => hashes.stats(),

    /** Ends a session; its live streams end too, on every app instance. */
    async logout(session: string): Promise<void> {
      const id = sha256(session);
      const row = await db.session.findUnique({ where: { id }, select: { humanId: true } });
      const ended = await db.session.deleteMany({ where: { id } });
      if (row && ended.count > 0) bus.publish({ type: "credentials", humanId: row.humanId });
    },

    /**
     * A session cookie → its human; an expired or unknown session is null. One statement, none
     * while the session is cached; `fresh` reads the database whatever the cache holds.
     */
    async fromSession(session: string | null | undefined, fresh = false): Promise<HumanCaller | null> {
      const found = session ? await sessionOf(session, fresh) : null;
      return found?.caller.kind === "human" ? found.caller : null;
    },

    /**
     * A bearer token → its caller, or null; a revoked, unknown or malformed token are the same
     * null. One statement, none while the token is cached (an idle agent's every /updates call);
     * `fresh` reads the database whatever the cache holds (what must not outlive a revocation).
     */
    async fromToken(
      token: string | null | undefined,
      instanceId?: string | null,
      fresh = false,
    ): Promise<Caller | null> {
      if (!token || !tokenKindOf(token)) return null;
      const hash = sha256(token);
      const read = () => tokenOf(hash, instanceId ?? null);
      const found = fresh ? await read() : await cache.get(`token ${hash} ${instanceId ?? ""}`, read);
      return found && found.caller.kind !== "device" ? found.caller : null;
    },

    /**
     * A `bay_u_` device credential → the person, the device and the one Bay it opens (B-324); null
     * when unknown, revoked, or the person no longer belongs to that Bay. Cached like a token.
     */
    async fromDevice(token: string | null | undefined, fresh = false): Promise<DeviceCaller | null> {
      if (!token?.startsWith(DEVICE_TOKEN_PREFIX)) return null;
      const hash = sha256(token);
      const read = () => deviceOf(hash);
      const found = fresh ? await read() : await cache.get(`device ${hash}`, read);
      return found?.caller.kind === "device" ? found.caller : null;
    },

    /**
     * A device credential acting as its person's session `name` in the credential's Bay (B-310):
     * the session's agent identity, or null (no such live session: the caller joins first).
     */
    async asSession(token: string | null | undefined, name: string, fresh = false): Promise<AgentCaller | null> {
      const device = await service.fromDevice(token, fresh);
      if (!device) return null;
      const read = async (): Promise<Authenticated | null> => {
        const [row] = await sql.query<{ agent_id: string; handle: string }>(
          `SELECT s.agent_id, a.handle FROM agent_sessions s JOIN agents a ON a.id = s.agent_id
           WHERE s.human_id = $1 AND s.bay_id = $2 AND s.name = $3 AND s.ended_at IS NULL`,
          [device.id, device.bay.id, name],
        );
        if (!row) return null;
        const caller: AgentCaller = {
          kind: "agent",
          id: row.agent_id,
          handle: row.handle,
          ownerId: device.id,
          instanceId: null,
          session: { name, deviceId: device.deviceId, bayId: device.bay.id },
        };
        return { caller, expiresAt: Number.POSITIVE_INFINITY };
      };
      const found = fresh ? await read() : await cache.get(`device ${sha256(token ?? "")} as ${name}`, read);
      return found?.caller.kind === "agent" ? found.caller : null;
    },

    /**
     * Watches the credential a held `/updates` or a live stream came with. `ended`
     * aborts when a bus `credentials` message names the caller and the credential no longer holds
     * (revoked, rotated, logged out), or when the session expires. Without a credential (an
     * in-process caller) nothing ends it.
     */
    async watch(caller: Caller, credential: Credential | null): Promise<CredentialWatch> {
      const controller = new AbortController();
      const end = () => controller.abort(new HubError("unauthenticated", "the credential was revoked or expired"));
      const valid = async (): Promise<boolean> => {
        if (!credential) return true;
        // Read from the database: this runs when the credential may just have changed.
        const now =
          "device" in credential
            ? await service.asSession(credential.device, credential.as, true)
            : "session" in credential
              ? await service.fromSession(credential.session, true)
              : await service.fromToken(credential.token, credential.instanceId, true);
        return now?.id === caller.id;
      };
      let timer: NodeJS.Timeout | null = null;
      const recheck = () => {
        if (controller.signal.aborted) return;
        void valid().then(
          (ok) => ok || end(),
          (error: unknown) => console.error("maity: re-checking a credential failed", error),
        );
      };
      const unsubscribe = bus.subscribe((message) => {
        if (message.type !== "credentials") return;
        // A terminal session also ends with its person's device (DESIGN §4e): its owner's change re-checks it.
        const owner = caller.kind === "agent" && caller.session ? caller.ownerId : null;
        if (message.agentId === caller.id || message.humanId === caller.id || (owner && message.humanId === owner))
          recheck();
      }, "credentials");
      // Revocations published while the LISTEN connection was down never arrive: check once it is back.
      const unresync = bus.onResync(recheck);
      if (credential && "session" in credential) {
        const expiresAt = (await sessionOf(credential.session, false))?.expiresAt ?? 0;
        const arm = () => {
          const left = expiresAt - Date.now();
          if (left <= 0) return end();
          timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
          timer.unref();
        };
        arm();
      }
      return {
        ended: controller.signal,
        still: async () => !controller.signal.aborted && (await valid()),
        stop: () => {
          unsubscribe();
          unresync();
          if (timer) clearTimeout(timer);
        },
      };
    },
  };
  return service;
}
export type AuthService = ReturnType<typeof authService>;

type TokenRow = {
  kind: string;
  human_id: string | null;
  human_handle: string | null;
  display_name: string | null;
  agent_id: string | null;
  agent_handle: string | null;
  owner_id: string | null;
  instance_id: string | null;
};

/** $1 the token's SHA-256, $2 the instance the client names (null: the agent's default one). */
const TOKEN_SQL = `
SELECT t.kind, h.id AS human_id, h.handle AS human_handle, h.display_name, a.id AS agent_id, a.handle AS agent_handle, a.owner_id,
  (SELECT i.id FROM agent_instances i
    WHERE i.agent_id = a.id AND (($2::text IS NULL AND i.is_default) OR i.id = $2::text) LIMIT 1) AS instance_id
FROM access_tokens t
LEFT JOIN humans h ON h.id = t.human_id
LEFT JOIN agents a ON a.id = t.agent_id
WHERE t.hash = $1 AND t.revoked_at IS NULL`;

type DeviceRow = {
  device_id: string;
  human_id: string;
  handle: string;
  display_name: string;
  bay_id: string;
  bay_handle: string;
  last_used_at: Date | string | null;
};

/**
 * $1 the credential's SHA-256. The Bay must still be the person's: their own, or the Bay of a
 * project they are an active member of (removed from it, the credential opens nothing there).
 */
const DEVICE_SQL = `
SELECT d.id AS device_id, d.human_id, h.handle, h.display_name, b.id AS bay_id, b.handle AS bay_handle, d.last_used_at
FROM device_credentials c
JOIN devices d ON d.id = c.device_id
JOIN humans h ON h.id = d.human_id
JOIN bays b ON b.id = c.bay_id
WHERE c.hash = $1 AND d.revoked_at IS NULL
  AND (h.bay_id = b.id OR EXISTS (
    SELECT 1 FROM memberships m JOIN projects p ON p.id = m.project_id
    WHERE m.member_id = h.id AND m.status = 'active' AND p.bay_id = b.id))`;

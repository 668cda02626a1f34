import { HubError, type loginInput, tokenKindOf } from "@maity/domain";
import type { z } from "zod";
import type { Db, SqlExecutor } from "@maity/db";
import type { LiveBus } from "../delivery/bus.ts";
import type { Caller, HumanCaller } from "../access/caller.ts";
import { mintSecret, sha256, verifyPassword } from "./credentials.ts";
import { DEFAULT_LOGIN, type LoginSettings, type RateLimits, workGate } from "./limits.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** setTimeout's longest delay (about 24.8 days): a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface AuthOptions {
  /** Issue 13 #5: login limits and the hash gate (defaults DEFAULT_LOGIN). */
  login?: Partial<LoginSettings>;
  /** How long a dashboard session lasts (default SESSION_TTL_MS, 30 days). */
  sessionTtlMs?: number;
}

/** What a held or streaming read came with: a bearer token (and the instance it names) or a session cookie. */
export type Credential = { token: string; instanceId?: string | null } | { session: string };

/** Issue 13 #7: a held or streaming read's credential, watched while the read lasts. */
export interface CredentialWatch {
  /** Aborts once the credential is revoked (a bus `credentials` message, from any instance) or expires. */
  readonly ended: AbortSignal;
  /** Whether the credential is still good now: read from the database, for what must not outlive it. */
  still(): Promise<boolean>;
  stop(): void;
}

/** Answered alike for every login limit, and for a known and an unknown handle (issue 13 #5). */
const tooMany = (seconds: number) =>
  new HubError("rate_limited", `too many login attempts; try again in ${seconds} s`, {
    limit: "login",
    retry_after: seconds,
  });

type LoggedIn = { session: string; human: HumanCaller; expiresAt: Date };
const HUMAN_LOGIN = { id: true, handle: true, displayName: true, passwordHash: true } as const;

/** `sql` is the driver itself: every request authenticates, so it skips Prisma's per-query work (issue 12). */
export function authService(db: Db, sql: SqlExecutor, bus: LiveBus, limits: RateLimits, options: AuthOptions = {}) {
  const settings = { ...DEFAULT_LOGIN, ...options.login };
  const sessionTtlMs = options.sessionTtlMs ?? SESSION_TTL_MS;
  // Issue 13 #5: 100 concurrent logins took /api/health to 2.7 s; a few hashes at a time leave the
  // event loop (and the rest of libuv's thread pool) room to work.
  const hashes = workGate(settings.hashes, settings.queue);
  const failures = (handle: string) => ({
    // Keyed by a hash: whatever the handle's length, the key is small.
    id: `login-failures ${sha256(handle)}`,
    capacity: settings.failuresPerHandle,
    windowMs: settings.failureWindowMs,
  });

  const service = {
    /**
     * Password login → a session secret for the cookie. A wrong handle and a wrong password answer
     * alike. Issue 13 #5: the client address's and the handle's budgets are spent first (429 with
     * `retry_after`, the same for a known and an unknown handle), then the hash waits for the gate.
     */
    async login(data: z.output<typeof loginInput>, client: { address?: string | null } = {}): Promise<LoggedIn> {
      const handle = data.handle.trim().toLowerCase();
      const byAddress = limits.spend(`login ${client.address ?? "unknown"}`, settings.perAddress, 60_000);
      if (byAddress !== null) throw tooMany(byAddress);
      // The handle's failure is spent up front, so a burst of concurrent guesses cannot all pass
      // one check before any has failed; a login that succeeds gives it back.
      const bucket = failures(handle);
      const byHandle = limits.spend(bucket.id, bucket.capacity, bucket.windowMs);
      if (byHandle !== null) throw tooMany(byHandle);
      const human = await db.human.findUnique({ where: { handle }, select: HUMAN_LOGIN });
      const verdict = await hashes.run(() => verifyPassword(data.password, human?.passwordHash ?? null));
      if (!verdict) {
        // The line is full: no password was tried, so the handle's budget is not spent.
        limits.refund(bucket.id, bucket.capacity, bucket.windowMs);
        throw tooMany(1);
      }
      if (!human || !verdict.value) throw new HubError("unauthenticated", "wrong handle or password");
      limits.refund(bucket.id, bucket.capacity, bucket.windowMs);
      const { secret, hash } = mintSecret("session");
      const expiresAt = new Date(Date.now() + sessionTtlMs);
      await db.session.create({ data: { id: hash, humanId: human.id, expiresAt } });
      const caller: HumanCaller = { kind: "human", id: human.id, handle: human.handle, name: human.displayName };
      return { session: secret, human: caller, expiresAt };
    },

    /** Password hashes running and waiting now, and the most that ran at once (issue 13 #5). */
    hashing: () => hashes.stats(),

    /** Ends a session; its live streams end too, on every app instance (issue 13 #7). */
    async logout(session: string): Promise<void> {
      const id = sha256(session);
      const row = await db.session.findUnique({ where: { id }, select: { humanId: true } });
      const ended = await db.session.deleteMany({ where: { id } });
      if (row && ended.count > 0) bus.publish({ type: "credentials", humanId: row.humanId });
    },

    /** A session cookie → its human, in one statement; an expired or unknown session is null. */
    async fromSession(session: string | null | undefined): Promise<HumanCaller | null> {
      if (!session) return null;
      const [row] = await sql.query<{ id: string; handle: string; display_name: string }>(
        `SELECT h.id, h.handle, h.display_name FROM sessions s JOIN humans h ON h.id = s.human_id WHERE s.id = $1 AND s.expires_at > $2::timestamp`,
        [sha256(session), new Date().toISOString()],
      );
      return row ? { kind: "human", id: row.id, handle: row.handle, name: row.display_name } : null;
    },

    /**
     * A bearer token → its caller, or null, in one statement (issue 12: every request pays it); a
     * revoked, unknown or malformed token are the same null.
     */
    async fromToken(token: string | null | undefined, instanceId?: string | null): Promise<Caller | null> {
      if (!token || !tokenKindOf(token)) return null;
      const [row] = await sql.query<TokenRow>(TOKEN_SQL, [sha256(token), instanceId ?? null]);
      if (!row) return null;
      if (row.kind === "human" && row.human_id)
        return { kind: "human", id: row.human_id, handle: row.human_handle ?? "", name: row.display_name ?? "" };
      if (row.kind === "agent" && row.agent_id) {
        // DESIGN §1: X-Agent-Instance names one of the agent's instances; without it, its default one.
        // Naming another agent's (or no) instance is a wrong credential, answered like one.
        if (instanceId && !row.instance_id) return null;
        return {
          kind: "agent",
          id: row.agent_id,
          handle: row.agent_handle ?? "",
          ownerId: row.owner_id ?? "",
          instanceId: row.instance_id,
        };
      }
      return null;
    },

    /**
     * Issue 13 #7: watches the credential a held `/updates` or a live stream came with. `ended`
     * aborts when a bus `credentials` message names the caller and the credential no longer holds
     * (revoked, rotated, logged out), or when the session expires. Without a credential (an
     * in-process caller) nothing ends it.
     */
    async watch(caller: Caller, credential: Credential | null): Promise<CredentialWatch> {
      const controller = new AbortController();
      const end = () => controller.abort(new HubError("unauthenticated", "the credential was revoked or expired"));
      const valid = async (): Promise<boolean> => {
        if (!credential) return true;
        const now =
          "session" in credential
            ? await service.fromSession(credential.session)
            : await service.fromToken(credential.token, credential.instanceId);
        return now?.id === caller.id;
      };
      let timer: NodeJS.Timeout | null = null;
      const unsubscribe = bus.subscribe((message) => {
        if (message.type !== "credentials" || controller.signal.aborted) return;
        if (message.agentId !== caller.id && message.humanId !== caller.id) return;
        void valid().then(
          (ok) => ok || end(),
          (error: unknown) => console.error("maity: re-checking a credential failed", error),
        );
      }, "credentials");
      if (credential && "session" in credential) {
        const id = sha256(credential.session);
        const row = await db.session.findUnique({ where: { id }, select: { expiresAt: true } });
        const expiresAt = row?.expiresAt.getTime() ?? 0;
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

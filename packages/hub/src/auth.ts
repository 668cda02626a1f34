import { HubError, loginInput, parseInput, tokenKindOf } from "@maity/domain";
import type { Db, SqlExecutor } from "@maity/db";
import type { Caller, HumanCaller } from "./caller.ts";
import { mintSecret, sha256, verifyPassword } from "./credentials.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** `sql` is the driver itself: every request authenticates, so it skips Prisma's per-query work (issue 12). */
export function authService(db: Db, sql: SqlExecutor) {
  return {
    /** Password login → a session secret for the cookie. A wrong handle and a wrong password answer alike. */
    async login(input: unknown): Promise<{ session: string; human: HumanCaller; expiresAt: Date }> {
      const data = parseInput(loginInput, input);
      const human = await db.human.findUnique({ where: { handle: data.handle.trim().toLowerCase() }, select: { id: true, handle: true, displayName: true, passwordHash: true } });
      const ok = await verifyPassword(data.password, human?.passwordHash ?? null);
      if (!human || !ok) throw new HubError("unauthenticated", "wrong handle or password");
      const { secret, hash } = mintSecret("session");
      const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
      await db.session.create({ data: { id: hash, humanId: human.id, expiresAt } });
      return { session: secret, human: { kind: "human", id: human.id, handle: human.handle, name: human.displayName }, expiresAt };
    },

    async logout(session: string): Promise<void> {
      await db.session.deleteMany({ where: { id: sha256(session) } });
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
      if (row.kind === "human" && row.human_id) return { kind: "human", id: row.human_id, handle: row.human_handle ?? "", name: row.display_name ?? "" };
      if (row.kind === "agent" && row.agent_id) {
        // DESIGN §1: X-Agent-Instance names one of the agent's instances; without it, its default one.
        // Naming another agent's (or no) instance is a wrong credential, answered like one.
        if (instanceId && !row.instance_id) return null;
        return { kind: "agent", id: row.agent_id, handle: row.agent_handle ?? "", ownerId: row.owner_id ?? "", instanceId: row.instance_id };
      }
      return null;
    },
  };
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

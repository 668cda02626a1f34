import { HubError, loginInput, parseInput, tokenKindOf } from "@maity/domain";
import type { Db } from "@maity/db";
import type { AgentCaller, Caller, HumanCaller } from "./caller.ts";
import { mintSecret, sha256, verifyPassword } from "./credentials.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export function authService(db: Db) {
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

    async fromSession(session: string | null | undefined): Promise<HumanCaller | null> {
      if (!session) return null;
      const row = await db.session.findUnique({
        where: { id: sha256(session) },
        select: { expiresAt: true, human: { select: { id: true, handle: true, displayName: true } } },
      });
      if (!row || row.expiresAt <= new Date()) return null;
      return { kind: "human", id: row.human.id, handle: row.human.handle, name: row.human.displayName };
    },

    /** A bearer token → its caller, or null; a revoked, unknown or malformed token are the same null. */
    async fromToken(token: string | null | undefined, instanceId?: string | null): Promise<Caller | null> {
      if (!token || !tokenKindOf(token)) return null;
      const row = await db.accessToken.findUnique({
        where: { hash: sha256(token) },
        select: {
          id: true,
          kind: true,
          revokedAt: true,
          human: { select: { id: true, handle: true, displayName: true } },
          agent: { select: { id: true, handle: true, ownerId: true } },
        },
      });
      if (!row || row.revokedAt) return null;
      if (row.kind === "human" && row.human) return { kind: "human", id: row.human.id, handle: row.human.handle, name: row.human.displayName };
      if (row.kind === "agent" && row.agent) {
        // DESIGN §1: X-Agent-Instance names one of the agent's instances; without it, its default one.
        // Naming another agent's (or no) instance is a wrong credential, answered like one.
        const instance = await db.agentInstance.findFirst({
          where: instanceId ? { id: instanceId, agentId: row.agent.id } : { agentId: row.agent.id, isDefault: true },
          select: { id: true },
        });
        if (instanceId && !instance) return null;
        const caller: AgentCaller = { kind: "agent", id: row.agent.id, handle: row.agent.handle, ownerId: row.agent.ownerId, instanceId: instance?.id ?? null };
        return caller;
      }
      return null;
    },
  };
}
export type AuthService = ReturnType<typeof authService>;

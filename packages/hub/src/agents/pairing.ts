import { randomBytes, randomInt } from "node:crypto";
import {
  type AgentCredential,
  HubError,
  type LinkOpened,
  type LinkPoll,
  type linkPollInput,
  type linkRequestInput,
  type pairInput,
  RING_MAX_AGE_MS,
  ringOf,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { z } from "zod";
import type { LiveBus } from "../delivery/bus.ts";
import type { HumanCaller } from "../access/caller.ts";
import { mintSecret, sha256 } from "../auth/credentials.ts";

// 004 §2 the two ways an agent gets its credential. Pairing: the owner mints a short-lived,
// single-use code; redeeming it rotates the agent's token (B-014…B-016, B-026). Reverse linking:
// the CLI asks first, the owner approves in the dashboard, the CLI's poll collects a fresh token
// (B-018, B-019, OQ-B-34: it rotates too). Only hashes of codes, secrets and tokens are stored.

export const PAIRING_TTL_MS = 10 * 60 * 1000;
export const LINK_TTL_MS = 10 * 60 * 1000;
/** No 0/O, 1/I/L: a code read aloud or typed from a phone survives. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const code = (groups: number): string =>
  Array.from({ length: groups }, () =>
    Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join(""),
  ).join("-");
/** Codes are compared in one form: upper case, no spaces or dashes. */
export const normal = (value: string): string => value.toUpperCase().replace(/[\s-]/g, "");

type Credential = AgentCredential;

export function pairingService(db: Db, bus: LiveBus) {
  /** One live session per agent (B-026): every earlier token of the agent stops working. */
  async function rotate(tx: Tx, agentId: string, label: string): Promise<{ token: string; name: string }> {
    const agent = await tx.agent.findUniqueOrThrow({
      where: { id: agentId },
      select: { handle: true, owner: { select: { handle: true } } },
    });
    await tx.accessToken.updateMany({ where: { agentId, revokedAt: null }, data: { revokedAt: new Date() } });
    const { secret, hash } = mintSecret("agent");
    await tx.accessToken.create({ data: { kind: "agent", hash, agentId, label } });
    return { token: secret, name: `${agent.owner.handle}/${agent.handle}` };
  }

  /** The caller's own agent, or not_found (an agent of someone else does not exist for it). */
  async function ownAgent(owner: HumanCaller, agentId: string): Promise<void> {
    // A terminal session (DESIGN §4e) acts through its person's device, never by a token of its own.
    const agent = await db.agent.findFirst({
      where: { id: agentId, ownerId: owner.id, kind: "agent" },
      select: { id: true },
    });
    if (!agent) throw HubError.notFound("agent not found");
  }

  return {
    /** The caller's own agents, the ones it may pair or link. */
    async ownAgents(owner: HumanCaller) {
      const agents = await db.agent.findMany({
        // Terminal sessions are listed with the person's devices, not as agents to pair (DESIGN §4e).
        where: { ownerId: owner.id, kind: "agent" },
        select: { id: true, handle: true, description: true, owner: { select: { bay: { select: { handle: true } } } } },
        orderBy: { handle: "asc" },
      });
      // 004 v1.16–v1.17: each agent's memory for its owner — the ring, its tidies, its last overflow.
      const memory = await db.agentContext.findMany({
        where: { agentId: { in: agents.map((a) => a.id) } },
        select: {
          agentId: true,
          percent: true,
          source: true,
          runtime: true,
          reportedAt: true,
          size: true,
          autoCompactAt: true,
          compactions: true,
          overflowAt: true,
        },
      });
      const byAgent = new Map(memory.map((m) => [m.agentId, m]));
      const now = Date.now();
      return agents.map((a) => {
        const m = byAgent.get(a.id);
        return {
          id: a.id,
          name: `${owner.handle}/${a.handle}`,
          description: a.description,
          // DESIGN §4c: its Bay (its owner's); in a project of another Bay it is a visitor.
          bay: a.owner.bay.handle,
          context: ringOf(m, now),
          compactions: m?.compactions ?? 0,
          // B-288: the owner is told of an overflow (the last one within a day); nothing starts by itself.
          overflow_at:
            m?.overflowAt && now - m.overflowAt.getTime() < RING_MAX_AGE_MS ? m.overflowAt.toISOString() : null,
        };
      });
    },

    /** The owner mints a pairing code for one of its agents (B-014). */
    async mintPairingCode(owner: HumanCaller, agentId: string) {
      await ownAgent(owner, agentId);
      const value = code(3);
      const expiresAt = new Date(Date.now() + PAIRING_TTL_MS);
      await db.pairingCode.create({ data: { id: sha256(normal(value)), agentId, createdById: owner.id, expiresAt } });
      return { code: value, agent_id: agentId, expires_at: expiresAt.toISOString() };
    },

    /**
     * POST /api/agent-api/pair (pre-auth): a live, unused code → the rotated token (B-015, B-016).
     * An unknown, used and expired code answer alike.
     */
    async redeem(data: z.output<typeof pairInput>, baseUrl: string): Promise<Credential> {
      const id = sha256(normal(data.code));
      const result = await db.$transaction(async (tx) => {
        // The conditional update is the single use: of two racing redemptions one wins.
        const used = await tx.pairingCode.updateMany({
          where: { id, usedAt: null, expiresAt: { gt: new Date() } },
          data: { usedAt: new Date() },
        });
        if (used.count !== 1) return null;
        const { agentId } = await tx.pairingCode.findUniqueOrThrow({ where: { id }, select: { agentId: true } });
        return { agentId, ...(await rotate(tx, agentId, "paired")) };
      });
      if (!result)
        throw HubError.invalid({ code: "invalid_or_expired" }, "the pairing code is unknown, used or expired", {
          agentCode: "INVALID_PAIRING_CODE",
        });
      bus.publish({ type: "credentials", agentId: result.agentId });
      return { baseUrl, token: result.token, agent: { id: result.agentId, name: result.name } };
    },

    /** POST /api/agent-api/link (pre-auth): a request the owner approves at `approveUrl` (B-018). */
    async createLink(data: z.output<typeof linkRequestInput>, baseUrl: string): Promise<LinkOpened> {
      const approveCode = code(3);
      const secret = randomBytes(32).toString("base64url");
      const id = `lnk-${randomBytes(12).toString("base64url")}`;
      const expiresAt = new Date(Date.now() + LINK_TTL_MS);
      await db.linkRequest.create({
        data: {
          id,
          codeHash: sha256(normal(approveCode)),
          pollSecretHash: sha256(secret),
          label: data.label ?? null,
          expiresAt,
        },
      });
      // B-019: the URL carries the approve code only, never a token.
      return {
        id,
        secret,
        code: approveCode,
        approveUrl: `${baseUrl}/link/${approveCode}`,
        expiresAt: expiresAt.toISOString(),
        pollIntervalSeconds: 2,
      };
    },

    /** What the owner sees before approving: the request's label and whether it is still open. */
    async viewLink(owner: HumanCaller, approveCode: string) {
      const link = await db.linkRequest.findUnique({
        where: { codeHash: sha256(normal(approveCode)) },
        select: { label: true, createdAt: true, expiresAt: true, approvedAt: true },
      });
      if (!link) throw HubError.notFound("link request not found");
      const agents = await db.agent.findMany({
        // Terminal sessions are listed with the person's devices, not as agents to pair (DESIGN §4e).
        where: { ownerId: owner.id, kind: "agent" },
        select: { id: true, handle: true },
        orderBy: { handle: "asc" },
      });
      const status = link.approvedAt ? "approved" : link.expiresAt <= new Date() ? "expired" : "pending";
      return {
        label: link.label,
        status: status as "approved" | "expired" | "pending",
        created_at: link.createdAt.toISOString(),
        expires_at: link.expiresAt.toISOString(),
        agents: agents.map((a) => ({ id: a.id, name: `${owner.handle}/${a.handle}` })),
      };
    },

    /** The owner approves a link request for one of its agents (once, while it is open). */
    async approveLink(owner: HumanCaller, approveCode: string, agentId: string) {
      await ownAgent(owner, agentId);
      const now = new Date();
      const done = await db.linkRequest.updateMany({
        where: { codeHash: sha256(normal(approveCode)), approvedAt: null, expiresAt: { gt: now } },
        data: { agentId, approvedById: owner.id, approvedAt: now },
      });
      if (done.count !== 1) throw HubError.notFound("link request not found, expired or already approved");
      return { approved: true as const, agent_id: agentId };
    },

    /**
     * POST /api/agent-api/link/:id/poll (pre-auth, the request's secret): pending until approved,
     * then the fresh token exactly once (the poll that collects it rotates the agent's tokens).
     */
    async pollLink(id: string, { secret }: z.output<typeof linkPollInput>, baseUrl: string): Promise<LinkPoll> {
      const link = await db.linkRequest.findUnique({
        where: { id },
        select: { pollSecretHash: true, expiresAt: true, agentId: true, redeemedAt: true },
      });
      if (!link || link.pollSecretHash !== sha256(secret) || link.redeemedAt)
        throw HubError.notFound("link request not found");
      if (!link.agentId) {
        if (link.expiresAt <= new Date()) throw HubError.notFound("link request not found");
        return { status: "pending" };
      }
      const agentId = link.agentId;
      const result = await db.$transaction(async (tx) => {
        const taken = await tx.linkRequest.updateMany({
          where: { id, redeemedAt: null },
          data: { redeemedAt: new Date() },
        });
        return taken.count === 1 ? rotate(tx, agentId, "linked") : null;
      });
      if (!result) throw HubError.notFound("link request not found");
      bus.publish({ type: "credentials", agentId });
      return { status: "approved", baseUrl, token: result.token, agent: { id: agentId, name: result.name } };
    },
  };
}
export type PairingService = ReturnType<typeof pairingService>;

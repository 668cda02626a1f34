// §9.2 "Wake" and DESIGN.md §1 "One routing function": decided once per message, stored with the
// event as one verdict per agent participant (the agent protocol reads it as `shouldRespond`).
// In a group chat the reply policy decides (004 §4, decideRouting): under MENTIONS, the default,
// an agent wakes when the message @mentions it — or, from a human, names it (B-054, B-061) — and an
// agent's message wakes another agent only by @mention. An agent's own message never wakes itself.
// A direct conversation's human message always wakes the agent (§9.1).

import { decideRouting, ROUTING_REASONS, type ReplyPolicy, type Router } from "./routing.ts";

export interface WakeParticipant {
  member_id: string;
  kind: "human" | "agent";
  /** The roster name an agent is addressed by (`owner/handle`), and what it is for (ROUTER). */
  name?: string;
  description?: string;
  /** A visitor placed with wake "sponsor" (B-302): only this person's messages wake it. */
  wokenOnlyBy?: string;
}

export interface WakeInput {
  conversationKind: "direct" | "group";
  authorId: string;
  authorKind: "human" | "agent";
  /** Current participants (the author included). */
  participants: WakeParticipant[];
  /** Resolved mentions of the message (`instance` from `@handle#instance`). */
  mentions: { member_id: string; instance: string | null }[];
  /** The instance a human named with `to_instance` (direct conversations only). */
  toInstance?: string | null;
  /** The message text (name addressing, the router). */
  body?: string;
  /** The group chat's reply policy (004 §4); MENTIONS with 2 rounds when absent. */
  policy?: { policy: ReplyPolicy; designatedAgentId: string | null; maxAgentRounds: number };
  /** The author of the message this one replies to. */
  replyTo?: { id: string; kind: "human" | "agent" } | null;
  /** Consecutive agent messages right before this one (B-068). */
  agentRoundsBefore?: number;
  router?: Router;
}

export const WAKE_REASONS = ["direct", "agent_author", ...ROUTING_REASONS, "not_sponsor"] as const;
export type WakeReason = (typeof WAKE_REASONS)[number];

export interface AgentVerdict {
  agentId: string;
  instanceId: string | null;
  shouldRespond: boolean;
  reason: WakeReason;
}

export interface WakeDecision {
  /** Human participants to notify: every human participant but the author (§9.2 M-150). */
  humans: string[];
  agents: AgentVerdict[];
  /** metadata.addressedAgents: the agents a human named without @ (B-063). */
  addressedAgents: string[];
}

export function decideWake(input: WakeInput): WakeDecision {
  const humans = input.participants
    .filter((p) => p.kind === "human" && p.member_id !== input.authorId)
    .map((p) => p.member_id);
  const agentParticipants = input.participants.filter((p) => p.kind === "agent");
  if (input.conversationKind === "direct") {
    const agents = agentParticipants.map((p): AgentVerdict => {
      if (p.member_id === input.authorId)
        return { agentId: p.member_id, instanceId: null, shouldRespond: false, reason: "own_message" };
      // §9.1 / B-047: the human's message wakes the agent; to_instance names the one instance.
      return input.authorKind === "human"
        ? { agentId: p.member_id, instanceId: input.toInstance ?? null, shouldRespond: true, reason: "direct" }
        : { agentId: p.member_id, instanceId: null, shouldRespond: false, reason: "agent_author" };
    });
    return { humans, agents, addressedAgents: [] };
  }
  // A group chat: the one routing function of the agent protocol (§4), MENTIONS by default.
  const policy = input.policy ?? { policy: "MENTIONS" as const, designatedAgentId: null, maxAgentRounds: 2 };
  const agentIds = new Set(agentParticipants.map((p) => p.member_id));
  const decision = decideRouting({
    policy: policy.policy,
    designatedAgentId: policy.designatedAgentId,
    maxAgentRounds: policy.maxAgentRounds,
    author: { id: input.authorId, kind: input.authorKind },
    body: input.body ?? "",
    agents: agentParticipants.map((p) => ({ id: p.member_id, name: p.name ?? "", description: p.description ?? "" })),
    // B-086: only agents are mentionable for routing.
    mentions: input.mentions.map((m) => m.member_id).filter((id) => agentIds.has(id)),
    replyTo: input.replyTo ?? null,
    agentRoundsBefore: input.agentRoundsBefore ?? 0,
    ...(input.router ? { router: input.router } : {}),
  });
  const agents = decision.verdicts.map((v): AgentVerdict => {
    // B-302: a visitor woken only by its sponsor sleeps through everyone else, mentions included.
    const only = agentParticipants.find((p) => p.member_id === v.agentId)?.wokenOnlyBy;
    if (only !== undefined && v.reason !== "own_message" && input.authorId !== only)
      return { agentId: v.agentId, instanceId: null, shouldRespond: false, reason: "not_sponsor" };
    // `@handle#instance` wakes that instance (DESIGN §1).
    const instance =
      v.reason === "mentioned" ? (input.mentions.find((m) => m.member_id === v.agentId)?.instance ?? null) : null;
    return { agentId: v.agentId, instanceId: instance, shouldRespond: v.shouldRespond, reason: v.reason };
  });
  return { humans, agents, addressedAgents: decision.addressedAgents };
}

/** §9.2 Mentions: each mentioned participant other than the writer counts one ping (§1.7). */
export function pingsOf(authorId: string, mentions: { member_id: string }[]): number {
  return new Set(mentions.map((m) => m.member_id).filter((id) => id !== authorId)).size;
}

/** §1.7 ping rate per writer: the documented default, overridable by the operator (MAITY_PING_RATE). */
export interface PingRate {
  pings: number;
  windowSeconds: number;
}
export const DEFAULT_PING_RATE: Readonly<PingRate> = { pings: 60, windowSeconds: 600 };
/** `<pings>/<seconds>`, both whole and at least 1; anything else is null (the settings refuse it, naming the variable). */
export function parsePingRate(value: string): PingRate | null {
  const match = /^([1-9]\d*)\/([1-9]\d*)$/.exec(value.trim());
  return match ? { pings: Number(match[1]), windowSeconds: Number(match[2]) } : null;
}

/**
 * A reader's shouldRespond for a message: its own verdict, decided once when the message was
 * written (DESIGN §1; `respond` = the agents whose verdict is true), and never for its own message.
 */
export function shouldRespondFor(senderId: string, respond: readonly string[], readerId: string): boolean {
  return senderId !== readerId && respond.includes(readerId);
}

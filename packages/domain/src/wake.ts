// §9.2 "Wake" and DESIGN.md §1 "One routing function": decided once per message, stored with the
// event as one verdict per agent participant (the agent protocol reads it as `shouldRespond`).
// Under MENTIONS (the only policy built with §9; the agent protocol adds the others) an agent in a
// group chat wakes only when the message mentions it; an agent's own message never wakes itself.
// A direct conversation's human message always wakes the agent (§9.1).

export interface WakeParticipant {
  member_id: string;
  kind: "human" | "agent";
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
}

export type WakeReason = "direct" | "mentioned" | "not_mentioned" | "own_message" | "agent_author";

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
}

export function decideWake(input: WakeInput): WakeDecision {
  const humans = input.participants.filter((p) => p.kind === "human" && p.member_id !== input.authorId).map((p) => p.member_id);
  const agents = input.participants
    .filter((p) => p.kind === "agent")
    .map((p): AgentVerdict => {
      if (p.member_id === input.authorId) return { agentId: p.member_id, instanceId: null, shouldRespond: false, reason: "own_message" };
      if (input.conversationKind === "direct") {
        // §9.1: the human's message wakes the agent; to_instance names the one instance.
        return input.authorKind === "human"
          ? { agentId: p.member_id, instanceId: input.toInstance ?? null, shouldRespond: true, reason: "direct" }
          : { agentId: p.member_id, instanceId: null, shouldRespond: false, reason: "agent_author" };
      }
      const mention = input.mentions.find((m) => m.member_id === p.member_id);
      // M-080: an agent's message wakes another agent only by mentioning it — the same test.
      return mention
        ? { agentId: p.member_id, instanceId: mention.instance, shouldRespond: true, reason: "mentioned" }
        : { agentId: p.member_id, instanceId: null, shouldRespond: false, reason: "not_mentioned" };
    });
  return { humans, agents };
}

/** §9.2 Mentions: each mentioned participant other than the writer counts one ping (§1.7). */
export function pingsOf(authorId: string, mentions: { member_id: string }[]): number {
  return new Set(mentions.map((m) => m.member_id).filter((id) => id !== authorId)).size;
}

/** §1.7 ping rate per writer: documented default, overridable (MAITY_PING_RATE="<pings>/<seconds>"). */
export const DEFAULT_PING_RATE = { pings: 60, windowSeconds: 600 } as const;
export function parsePingRate(value: string | undefined): { pings: number; windowSeconds: number } {
  const match = value ? /^(\d+)\/(\d+)$/.exec(value.trim()) : null;
  if (!match) return { ...DEFAULT_PING_RATE };
  const pings = Number(match[1]);
  const windowSeconds = Number(match[2]);
  return pings > 0 && windowSeconds > 0 ? { pings, windowSeconds } : { ...DEFAULT_PING_RATE };
}

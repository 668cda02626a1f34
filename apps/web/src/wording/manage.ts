import {
  checkGroupParticipants,
  GROUP_PARTICIPANTS_MAX,
  MAX_AGENT_ROUNDS_UNACCEPTED,
  POLICY_NAMES_AGENT,
  type ReplyPolicy,
} from "@maity/domain";

// The words of managing and creating a group chat (§9.2, 004 §4): the picker's refusals, the reply
// policies, the hub's field errors as sentences. Pure, table-tested (test/chatView.test.ts).

/** Why the create dialog refuses a choice of participants, in words (§9.2 "Who takes part"). */
export const PARTICIPANTS_WORDS: Record<"too_few" | "too_many" | "not_a_member" | "use_direct", string> = {
  too_few: "Choose at least one other participant.",
  too_many: `A group chat has at most ${GROUP_PARTICIPANTS_MAX} participants, you included.`,
  not_a_member: "Only active members of the project can take part.",
  use_direct: "You and your own agent alone are your direct conversation with it: use the direct conversation instead.",
};

export interface PickerMember {
  member_id: string;
  kind: "human" | "agent";
  owner_id: string | null;
}
export type PickerVerdict =
  | { ok: true }
  | { ok: false; reason: keyof typeof PARTICIPANTS_WORDS; words: string; directWith: string | null };

/**
 * The create dialog's check before sending: the hub's own rule (checkGroupParticipants, §9.2), so
 * the picker refuses exactly what the hub would. `directWith` names the agent whose direct
 * conversation to open instead.
 */
export function pickerVerdict(
  creatorId: string,
  picked: readonly string[],
  members: readonly PickerMember[],
): PickerVerdict {
  const known = new Map(members.map((m) => [m.member_id, { kind: m.kind, ownerId: m.owner_id }]));
  // The creator is a member of the project it creates in, listed or not (§9.2 "Who creates").
  if (!known.has(creatorId)) known.set(creatorId, { kind: "human", ownerId: null });
  const verdict = checkGroupParticipants({ creatorId, requested: [...picked], members: known });
  if (verdict.ok) return { ok: true };
  const others = picked.filter((id) => id !== creatorId);
  return {
    ok: false,
    reason: verdict.reason,
    words: PARTICIPANTS_WORDS[verdict.reason],
    directWith: verdict.reason === "use_direct" ? (others[0] ?? null) : null,
  };
}

/** 004 §4's five reply policies, as a manager chooses them. */
export const POLICY_WORDS: Record<ReplyPolicy, { label: string; chip: string; help: string }> = {
  MENTIONS: {
    label: "Mentioned agents",
    chip: "mentioned agents",
    help: "Agents answer only when @mentioned or named.",
  },
  DEDICATED: {
    label: "One designated agent",
    chip: "the designated agent",
    help: "One agent answers every message nobody addressed; the others when @mentioned.",
  },
  ORCHESTRATOR: {
    label: "An orchestrator",
    chip: "the orchestrator",
    help: "One agent answers and hands work on to the others by @mentioning them.",
  },
  ROUTER: {
    label: "Router",
    chip: "the router's pick",
    help: "The hub picks the agents that fit each message; an optional fallback answers when none fits.",
  },
  OPEN: {
    label: "Open",
    chip: "every agent",
    help: "Every agent may answer people's messages; each reply counts toward the round cap.",
  },
};

/** What the designated agent is called under a policy, or null when the policy names none (004 §4). */
export function designatedRole(policy: ReplyPolicy): { label: string; required: boolean } | null {
  const names = POLICY_NAMES_AGENT[policy];
  if (names === "none") return null;
  const label =
    policy === "DEDICATED" ? "Designated agent" : policy === "ORCHESTRATOR" ? "Orchestrator" : "Fallback agent";
  return { label, required: names === "required" };
}

/** The chat header's chip: "Replies: mentioned agents · up to 3 rounds" (004 §4). */
export function policyChip(policy: ReplyPolicy, maxAgentRounds: number, designated: string | null): string {
  const who =
    designated && POLICY_NAMES_AGENT[policy] !== "none"
      ? `${POLICY_WORDS[policy].chip} (${designated})`
      : POLICY_WORDS[policy].chip;
  const rounds =
    maxAgentRounds === 0
      ? "no agent-to-agent rounds"
      : `up to ${maxAgentRounds} ${maxAgentRounds === 1 ? "round" : "rounds"}`;
  return `Replies: ${who} · ${rounds}`;
}

/** B-067: a new round cap above 5 needs the manager's acceptance of the token cost; a kept one does not. */
export const needsTokenCostAcceptance = (next: number, current: number): boolean =>
  next > MAX_AGENT_ROUNDS_UNACCEPTED && next !== current;

const FIELD_NAMES: Record<string, string> = {
  title: "Title",
  participants: "Participants",
  member_id: "Member",
  reply_policy: "Reply policy",
  designated_agent_id: "Designated agent",
  max_agent_rounds: "Round cap",
  accept_token_cost: "Token cost",
  custom_rules: "Custom rules",
  conversation: "Conversation",
  share_history: "Earlier history",
  wake: "Who wakes it",
};
const CODE_WORDS: Record<string, string> = {
  required: "choose one; this policy needs it.",
  not_used: "this policy names no agent.",
  not_an_agent_participant: "it must be an agent taking part in the chat.",
  needs_accept_token_cost: "more than 5 rounds only once you accept the token cost.",
  not_a_member: "only active members of the project can take part.",
  too_many: `a group chat has at most ${GROUP_PARTICIPANTS_MAX} participants.`,
  too_few: "choose at least one other participant.",
  use_direct: "that is your direct conversation with your agent.",
  "nothing to change": "nothing to change.",
  direct: "a direct conversation has no title or participants to change.",
  visitors_only: "only an agent visiting from another Bay is placed with this choice.",
};

/**
 * A field error of the hub (details.fields) as a sentence naming the field:
 * ("max_agent_rounds", "needs_accept_token_cost") → "Round cap: more than 5 rounds only once you accept the token cost."
 */
export function fieldErrorWords(field: string, code: string): string {
  const name = FIELD_NAMES[field] ?? field;
  const words = CODE_WORDS[code] ?? (code.endsWith(".") ? code : `${code}.`);
  return `${name}: ${words}`;
}

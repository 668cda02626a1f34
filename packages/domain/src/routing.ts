// Agent protocol §4 "When to speak" (B-052…B-077): the one routing function. For a message in a
// GROUP it decides, for every agent participant, whether it should respond (004 §4).
// The hub still stores MENTIONS verdicts through decideWake.

export const REPLY_POLICIES = ["MENTIONS", "DEDICATED", "ORCHESTRATOR", "ROUTER", "OPEN"] as const;
export type ReplyPolicy = (typeof REPLY_POLICIES)[number];
export const MAX_AGENT_ROUNDS_DEFAULT = 2;
export const MAX_AGENT_ROUNDS_LIMIT = 20;
/** Above this, a group admin must accept the token cost (B-067). */
export const MAX_AGENT_ROUNDS_UNACCEPTED = 5;

/** A stored policy name read back; anything unknown is the default (MENTIONS). */
export function replyPolicyOf(value: string | null | undefined): ReplyPolicy {
  return (REPLY_POLICIES as readonly string[]).includes(value ?? "") ? (value as ReplyPolicy) : "MENTIONS";
}

/** Which policies name an agent: DEDICATED its designated agent, ORCHESTRATOR the orchestrator, ROUTER the fallback. */
export const POLICY_NAMES_AGENT: Record<ReplyPolicy, "required" | "optional" | "none"> = {
  MENTIONS: "none",
  DEDICATED: "required",
  ORCHESTRATOR: "required",
  ROUTER: "optional",
  OPEN: "none",
};

/** The policy a group chat stands under (004 §4), and whether its rounds above 5 were accepted. */
export interface ChatPolicy {
  policy: ReplyPolicy;
  designatedAgentId: string | null;
  maxAgentRounds: number;
  /** A manager accepted the token cost of the current rounds (B-067). */
  roundsAccepted: boolean;
}
/** What a manager's PATCH asks for; absent fields keep what stands. */
export interface PolicyChangeRequest {
  reply_policy?: ReplyPolicy | undefined;
  designated_agent_id?: string | null | undefined;
  max_agent_rounds?: number | undefined;
  accept_token_cost?: boolean | undefined;
}
export type PolicyPlan =
  | { ok: false; fields: Record<string, string> }
  | {
      ok: true;
      policy: ReplyPolicy;
      designatedAgentId: string | null;
      maxAgentRounds: number;
      roundsAccepted: boolean;
    };

/**
 * B-066/B-067, §4: the policy a change leaves, checked whole against the room's agent participants.
 * Switching to a policy that names no agent drops the one named before, unless it is named again;
 * more than 5 rounds need the manager's acceptance of the token cost, which a kept value keeps.
 */
export function planPolicyChange(
  current: ChatPolicy,
  change: PolicyChangeRequest,
  agents: readonly string[],
): PolicyPlan {
  const policy = change.reply_policy ?? current.policy;
  const names = POLICY_NAMES_AGENT[policy];
  const designatedAgentId =
    change.designated_agent_id !== undefined
      ? change.designated_agent_id
      : names === "none"
        ? null
        : current.designatedAgentId;
  const maxAgentRounds = change.max_agent_rounds ?? current.maxAgentRounds;
  const fields: Record<string, string> = {};
  if (designatedAgentId === null && names === "required") fields.designated_agent_id = "required";
  else if (designatedAgentId !== null && names === "none") fields.designated_agent_id = "not_used";
  else if (designatedAgentId !== null && !agents.includes(designatedAgentId))
    fields.designated_agent_id = "not_an_agent_participant";
  const kept = maxAgentRounds === current.maxAgentRounds && current.roundsAccepted;
  if (maxAgentRounds > MAX_AGENT_ROUNDS_UNACCEPTED && change.accept_token_cost !== true && !kept)
    fields.max_agent_rounds = "needs_accept_token_cost";
  if (Object.keys(fields).length) return { ok: false, fields };
  return {
    ok: true,
    policy,
    designatedAgentId,
    maxAgentRounds,
    roundsAccepted: maxAgentRounds > MAX_AGENT_ROUNDS_UNACCEPTED,
  };
}

export interface RoutedAgent {
  id: string;
  name: string;
  description: string;
}

/** Picks agents for a human message (ROUTER); a model-backed router plugs in here. */
export type Router = (body: string, agents: readonly RoutedAgent[]) => string[];

export interface RoutingInput {
  policy: ReplyPolicy;
  /** DEDICATED: the designated agent; ORCHESTRATOR: the orchestrator; ROUTER: the fallback. */
  designatedAgentId: string | null;
  maxAgentRounds: number;
  author: { id: string; kind: "human" | "agent" };
  body: string;
  agents: readonly RoutedAgent[];
  /** Agent ids the body @mentions (server-parsed). */
  mentions: readonly string[];
  /** The author of the message replied to, if any. */
  replyTo: { id: string; kind: "human" | "agent" } | null;
  /** Consecutive agent messages right before this one, since the last human message. */
  agentRoundsBefore: number;
  router?: Router;
}

export const ROUTING_REASONS = [
  "own_message",
  "round_cap",
  "mentioned",
  "replied_to",
  "named",
  "designated",
  "orchestrator",
  "routed",
  "fallback",
  "open",
  "not_addressed",
] as const;
export type RoutingReason = (typeof ROUTING_REASONS)[number];
export interface RoutingVerdict {
  agentId: string;
  shouldRespond: boolean;
  reason: RoutingReason;
}
export interface RoutingDecision {
  verdicts: RoutingVerdict[];
  /** metadata.addressedAgents: agents a human named without @ (B-063). */
  addressedAgents: string[];
}

/** Characters that continue a name: a handle's dashes, `owner/handle`, `@…` and `#instance` included. */
const NAME_CHAR = /[\p{L}\p{N}_\-/@#]/u;
const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
const STOP = new Set([
  "the",
  "and",
  "for",
  "you",
  "bot",
  "agent",
  "can",
  "are",
  "with",
  "this",
  "that",
  "from",
  "have",
  "what",
  "when",
]);
/** An agent's roster name is `owner/handle`: the owner's part names the owner, not the agent. */
const handleOf = (name: string): string => name.slice(name.lastIndexOf("/") + 1).toLowerCase();

/**
 * B-061/B-062: a human naming an agent without `@` — its whole name, its handle, or a distinctive
 * word of its handle (≥ 3 letters, not a stop word; OQ-B-10); every agent a name fits. A name is
 * found only standing alone: not inside an @mention (that is a mention, B-063), nor inside a longer
 * name (`runner` in `test-runner`, `build-runner` in `@owner/build-runner`), so the longest wins.
 */
export function addressedAgents(body: string, agents: readonly RoutedAgent[]): string[] {
  const text = body.toLowerCase();
  const found = (needle: string): boolean => {
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      const before = text[i - 1];
      const after = text[i + needle.length];
      if ((before === undefined || !NAME_CHAR.test(before)) && (after === undefined || !NAME_CHAR.test(after)))
        return true;
    }
    return false;
  };
  return agents
    .filter((a) => {
      const name = a.name.toLowerCase();
      if (name && found(name)) return true;
      const handle = handleOf(a.name);
      if (handle && found(handle)) return true;
      return words(handle).some((w) => w.length >= 3 && !STOP.has(w) && found(w));
    })
    .map((a) => a.id);
}

/** The deterministic router: the agents whose handle and description share the most words with the message. */
export const keywordRouter: Router = (body, agents) => {
  const said = new Set(words(body).filter((w) => w.length >= 4 && !STOP.has(w)));
  const scored = agents.map((a) => ({
    id: a.id,
    score: new Set(words(`${handleOf(a.name)} ${a.description}`).filter((w) => said.has(w))).size,
  }));
  const best = Math.max(0, ...scored.map((s) => s.score));
  return best === 0 ? [] : scored.filter((s) => s.score === best).map((s) => s.id);
};

export function decideRouting(input: RoutingInput): RoutingDecision {
  const human = input.author.kind === "human";
  // Name addressing is for human messages only (B-064).
  const addressed = human
    ? addressedAgents(
        input.body,
        input.agents.filter((a) => a.id !== input.author.id),
      )
    : [];
  // B-068/B-069: the cap counts consecutive agent messages; a human message resets it.
  const capped = !human && input.agentRoundsBefore + 1 >= input.maxAgentRounds;
  const repliedTo = human && input.replyTo?.kind === "agent" ? input.replyTo.id : null; // B-072/B-073
  const mentioned = new Set(input.mentions);
  const namesAddress = input.policy !== "ORCHESTRATOR"; // B-065
  const unaddressed = mentioned.size === 0 && repliedTo === null && (!namesAddress || addressed.length === 0);
  const routed =
    human && input.policy === "ROUTER" && unaddressed ? (input.router ?? keywordRouter)(input.body, input.agents) : [];

  const verdicts = input.agents.map((agent): RoutingVerdict => {
    const v = (shouldRespond: boolean, reason: RoutingReason) => ({ agentId: agent.id, shouldRespond, reason });
    if (agent.id === input.author.id) return v(false, "own_message");
    if (capped) return v(false, "round_cap"); // the cap overrides mentions
    if (mentioned.has(agent.id)) return v(true, "mentioned"); // mentions always win (B-060)
    if (!human) return v(false, "not_addressed"); // B-076, B-089
    if (repliedTo === agent.id) return v(true, "replied_to");
    if (namesAddress && addressed.includes(agent.id)) return v(true, "named");
    switch (input.policy) {
      case "DEDICATED":
        return unaddressed && agent.id === input.designatedAgentId ? v(true, "designated") : v(false, "not_addressed");
      case "ORCHESTRATOR":
        return unaddressed && agent.id === input.designatedAgentId
          ? v(true, "orchestrator")
          : v(false, "not_addressed");
      case "ROUTER":
        if (!unaddressed) return v(false, "not_addressed");
        if (routed.includes(agent.id)) return v(true, "routed");
        return routed.length === 0 && agent.id === input.designatedAgentId
          ? v(true, "fallback")
          : v(false, "not_addressed");
      case "OPEN":
        return v(true, "open");
      default:
        return v(false, "not_addressed");
    }
  });
  return { verdicts, addressedAgents: addressed };
}

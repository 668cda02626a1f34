import { describe, expect, it } from "vitest";
import {
  addressedAgents,
  type ChatPolicy,
  decideRouting,
  keywordRouter,
  planPolicyChange,
  type ReplyPolicy,
} from "../src/index.ts";

// Agent protocol §4 "When to speak", one table per policy (B-054…B-077).
const agents = [
  { id: "agt-claude", name: "Claude", description: "General assistant." },
  { id: "agt-ops", name: "Ops Bot", description: "Deploys, CI pipelines and release checks." },
  { id: "agt-docs", name: "Docs Bot", description: "Writes changelogs and documentation." },
];
const human = { id: "hum-ann", kind: "human" as const };
const run = (policy: ReplyPolicy, body: string, extra: Partial<Parameters<typeof decideRouting>[0]> = {}) =>
  decideRouting({
    policy,
    designatedAgentId: "agt-claude",
    maxAgentRounds: 2,
    author: human,
    body,
    agents,
    mentions: [],
    replyTo: null,
    agentRoundsBefore: 0,
    ...extra,
  })
    .verdicts.filter((v) => v.shouldRespond)
    .map((v) => `${v.agentId}:${v.reason}`);

describe("reply policies (B-054 B-055 B-056 B-058 B-059 B-060)", () => {
  it.each([
    ["MENTIONS", "anyone there?", {}, []],
    ["MENTIONS", "@Ops Bot deploy", { mentions: ["agt-ops"] }, ["agt-ops:mentioned"]],
    ["MENTIONS", "Ops, is the deploy green?", {}, ["agt-ops:named"]],
    ["DEDICATED", "anyone there?", {}, ["agt-claude:designated"]],
    ["DEDICATED", "@Docs Bot changelog?", { mentions: ["agt-docs"] }, ["agt-docs:mentioned"]],
    ["ORCHESTRATOR", "anyone there?", {}, ["agt-claude:orchestrator"]],
    ["ORCHESTRATOR", "Ops, is the deploy green?", {}, ["agt-claude:orchestrator"]], // B-065: names do not address
    ["ORCHESTRATOR", "@Ops Bot deploy", { mentions: ["agt-ops"] }, ["agt-ops:mentioned"]],
    ["ROUTER", "please update the changelogs and documentation", {}, ["agt-docs:routed"]],
    ["ROUTER", "lunch?", {}, ["agt-claude:fallback"]],
    ["OPEN", "morning all", {}, ["agt-claude:open", "agt-ops:open", "agt-docs:open"]],
  ] as const)("%s: %j", (policy, body, extra, expected) => {
    expect(run(policy, body, extra)).toEqual(expected);
  });
});

describe("agents, replies, round cap (B-064 B-068 B-069 B-072 B-073 B-076 B-089)", () => {
  const agent = { id: "agt-ops", kind: "agent" as const };
  it.each([
    ["an agent's unaddressed message triggers nobody, even under OPEN", "OPEN", { author: agent }, []],
    ["an agent naming another agent narrates", "MENTIONS", { author: agent, body: "Docs should know" }, []],
    [
      "an agent @mentioning another wakes it",
      "MENTIONS",
      { author: agent, mentions: ["agt-docs"] },
      ["agt-docs:mentioned"],
    ],
    ["the cap overrides mentions", "MENTIONS", { author: agent, mentions: ["agt-docs"], agentRoundsBefore: 1 }, []],
    [
      "a human message resets the cap",
      "MENTIONS",
      { mentions: ["agt-docs"], agentRoundsBefore: 7 },
      ["agt-docs:mentioned"],
    ],
    [
      "a human replying to an agent addresses it",
      "MENTIONS",
      { replyTo: { id: "agt-docs", kind: "agent" } },
      ["agt-docs:replied_to"],
    ],
    [
      "an agent replying to an agent does not",
      "MENTIONS",
      { author: agent, replyTo: { id: "agt-docs", kind: "agent" } },
      [],
    ],
    ["never to oneself", "MENTIONS", { author: agent, mentions: ["agt-ops"] }, []],
  ] as const)("%s", (_name, policy, extra, expected) => {
    expect(run(policy, (extra as { body?: string }).body ?? "hello", extra)).toEqual(expected);
  });
});

describe("name addressing (B-061 B-062) and the router", () => {
  it.each([
    ["Claude, is the deploy green?", ["agt-claude"]],
    ["claude is asleep", ["agt-claude"]],
    ["Claudette said so", []],
    ["@Claude please", []], // a structured mention is not a name
    ["Bot, anyone?", []], // a word every name has is no name
    ["Ops and Docs: status?", ["agt-ops", "agt-docs"]],
  ])("%s → %j", (body, ids) => {
    expect(addressedAgents(body, agents)).toEqual(ids);
  });
  it("a name that fits several agents addresses all of them", () => {
    const twins = [
      { id: "agt-1", name: "Build Runner", description: "" },
      { id: "agt-2", name: "Build Checker", description: "" },
    ];
    expect(addressedAgents("Build, go", twins)).toEqual(["agt-1", "agt-2"]);
  });
  it("the keyword router picks by name and description; ties pick all", () => {
    expect(keywordRouter("the release checks failed in CI", agents)).toEqual(["agt-ops"]);
    expect(keywordRouter("hello", agents)).toEqual([]);
  });
});

describe("a manager's policy change (B-066 B-067, §4)", () => {
  const agents = ["agt-claude", "agt-ops"];
  const mentions: ChatPolicy = {
    policy: "MENTIONS",
    designatedAgentId: null,
    maxAgentRounds: 2,
    roundsAccepted: false,
  };
  const dedicated: ChatPolicy = {
    policy: "DEDICATED",
    designatedAgentId: "agt-ops",
    maxAgentRounds: 2,
    roundsAccepted: false,
  };
  const accepted8: ChatPolicy = { ...mentions, maxAgentRounds: 8, roundsAccepted: true };
  it.each([
    [
      "DEDICATED needs its agent",
      mentions,
      { reply_policy: "DEDICATED" },
      { ok: false, fields: { designated_agent_id: "required" } },
    ],
    [
      "ORCHESTRATOR with an agent participant",
      mentions,
      { reply_policy: "ORCHESTRATOR", designated_agent_id: "agt-claude" },
      { ok: true, policy: "ORCHESTRATOR", designatedAgentId: "agt-claude", maxAgentRounds: 2, roundsAccepted: false },
    ],
    [
      "a designated member that is no agent participant",
      mentions,
      { reply_policy: "DEDICATED", designated_agent_id: "hum-ann" },
      { ok: false, fields: { designated_agent_id: "not_an_agent_participant" } },
    ],
    [
      "MENTIONS names no agent",
      mentions,
      { designated_agent_id: "agt-ops" },
      { ok: false, fields: { designated_agent_id: "not_used" } },
    ],
    [
      "switching to OPEN drops the designated agent",
      dedicated,
      { reply_policy: "OPEN" },
      { ok: true, policy: "OPEN", designatedAgentId: null, maxAgentRounds: 2, roundsAccepted: false },
    ],
    [
      "switching DEDICATED → ROUTER keeps it as the fallback",
      dedicated,
      { reply_policy: "ROUTER" },
      { ok: true, policy: "ROUTER", designatedAgentId: "agt-ops", maxAgentRounds: 2, roundsAccepted: false },
    ],
    [
      "ROUTER without a fallback",
      mentions,
      { reply_policy: "ROUTER" },
      { ok: true, policy: "ROUTER", designatedAgentId: null, maxAgentRounds: 2, roundsAccepted: false },
    ],
    [
      "5 rounds need nobody's acceptance",
      mentions,
      { max_agent_rounds: 5 },
      { ok: true, policy: "MENTIONS", designatedAgentId: null, maxAgentRounds: 5, roundsAccepted: false },
    ],
    [
      "6 rounds without accepting the cost",
      mentions,
      { max_agent_rounds: 6 },
      { ok: false, fields: { max_agent_rounds: "needs_accept_token_cost" } },
    ],
    [
      "6 rounds with the cost accepted",
      mentions,
      { max_agent_rounds: 6, accept_token_cost: true },
      { ok: true, policy: "MENTIONS", designatedAgentId: null, maxAgentRounds: 6, roundsAccepted: true },
    ],
    [
      "an accepted 8 stays accepted through another change",
      accepted8,
      { reply_policy: "OPEN" },
      { ok: true, policy: "OPEN", designatedAgentId: null, maxAgentRounds: 8, roundsAccepted: true },
    ],
    [
      "a new value above 5 is accepted again",
      accepted8,
      { max_agent_rounds: 9 },
      { ok: false, fields: { max_agent_rounds: "needs_accept_token_cost" } },
    ],
  ] as const)("%s", (_name, current, change, plan) => {
    expect(planPolicyChange(current, change, agents)).toEqual(plan);
  });
});

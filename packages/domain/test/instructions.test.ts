import { describe, expect, it } from "vitest";
import { buildInstructions, oneLine } from "../src/index.ts";

// Agent protocol §3 "instructions" (B-042 B-043 B-046 B-047 B-048 B-049).
const roster = [
  { id: "hum-ann", name: "Ann", kind: "human" as const },
  { id: "agt-claude", name: "Claude", kind: "agent" as const, description: "General assistant." },
  { id: "agt-ops", name: "Ops Bot", kind: "agent" as const, description: "Deploys and CI.\nIgnore this line break." },
];
const base = {
  conversation: { type: "GROUP" as const, title: "Release" },
  roster,
  designatedAgentId: "agt-claude",
  maxAgentRounds: 2,
  customRules: null,
};

describe("buildInstructions", () => {
  it("B-042 states the eight parts in the spec's order", () => {
    const text = buildInstructions({
      ...base,
      you: { id: "agt-claude", name: "Claude" },
      policy: "ORCHESTRATOR",
      customRules: "Be brief.\n  Sign with your name.",
    });
    const at = (needle: string) => text.indexOf(needle);
    const order = [
      'You are "Claude", an agent in the "Release" group chat.',
      "Participants:",
      "- Claude (agent, orchestrator, you) — General assistant.",
      "The orchestrator is Claude.",
      "Reply policy ORCHESTRATOR: You are the orchestrator",
      "You can call: @Ops Bot.",
      "Respond only to messages marked shouldRespond",
      "Round cap: after 2 agent messages",
      "Group rules:\nBe brief.\n  Sign with your name.", // B-043 verbatim
    ].map(at);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it.each([
    [
      "MENTIONS",
      "agt-ops",
      "Reply only when a message @mentions you, when a person names you, or when a person replies to one of your messages. Otherwise stay silent.",
      false,
    ],
    ["DEDICATED", "agt-claude", "You are the designated agent", true],
    ["DEDICATED", "agt-ops", "Claude is the designated agent", false],
    [
      "ORCHESTRATOR",
      "agt-ops",
      "You are a specialist: reply only when a message @mentions you (Claude delegates that way) or a person replies to one of your messages.",
      false,
    ],
    ["ROUTER", "agt-claude", "You are the fallback", false],
    ["OPEN", "agt-ops", "permission, not obligation", false],
  ] as const)(
    "%s for %s: the policy addressed to you; whom to call only when you delegate",
    (policy, you, says, delegates) => {
      const text = buildInstructions({
        ...base,
        you: { id: you, name: you === "agt-ops" ? "Ops Bot" : "Claude" },
        policy,
      });
      expect(text).toContain(says);
      expect(text.includes("You can call:")).toBe(delegates);
      expect(text).toContain(
        policy === "ORCHESTRATOR" ? "The orchestrator is Claude." : "There is no orchestrator in this chat.",
      );
    },
  );

  it("B-046 B-047 a direct conversation: no policy machinery, every human message is answered", () => {
    expect(
      buildInstructions({
        ...base,
        conversation: { type: "DM", title: null },
        you: { id: "agt-claude", name: "Claude" },
        policy: "MENTIONS",
      }),
    ).toBe(
      'You are "Claude", an agent in a direct conversation.\nThere is no reply policy, no orchestrator and no round cap here: answer every human message.',
    );
  });

  it("B-048 names and descriptions are one line, controls and bidi collapsed, length capped", () => {
    expect(oneLine("Evil\nName\u202e\u2028x\tbot")).toBe("Evil Name x bot");
    expect(Array.from(oneLine("x".repeat(200))).length).toBe(80);
    const text = buildInstructions({ ...base, you: { id: "agt-ops", name: "Ops Bot" }, policy: "MENTIONS" });
    expect(text).toContain("- Ops Bot (agent, you) — Deploys and CI. Ignore this line break.");
  });

  it("B-049 a visitor's line says where it is from and who brought it", () => {
    const visitor = {
      id: "agt-v",
      name: "Scout",
      kind: "agent" as const,
      description: "Scouts.",
      visiting: { homeBay: "acme", sponsor: { id: "hum-ann", name: "Ann" } },
    };
    const text = buildInstructions({
      ...base,
      roster: [...roster, visitor],
      you: { id: "agt-ops", name: "Ops Bot" },
      policy: "MENTIONS",
    });
    expect(text).toContain("- Scout (agent) — Scouts. (visiting from another Bay: acme, brought by Ann)");
  });
});

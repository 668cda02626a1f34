import { describe, expect, it } from "vitest";
import { decideWake, meatProxyFields, parsePingRate, pingsOf, shouldRespondFor } from "../src/index.ts";

const group = [
  { member_id: "hum-maintainer", kind: "human" as const },
  { member_id: "hum-guest", kind: "human" as const },
  { member_id: "agt-a", kind: "agent" as const },
  { member_id: "agt-x", kind: "agent" as const },
];
const m = (member_id: string, instance: string | null = null) => ({ member_id, instance });

describe("decideWake (§9.2 Wake, §9.1; M-045 M-046 M-077 M-080 M-150 M-151)", () => {
  it.each([
    // [case, author, mentions, woken agents with reason]
    [
      "M-150 M-151 a human's plain message wakes the other humans and no agent",
      "hum-maintainer",
      [],
      [],
      ["hum-guest"],
    ],
    ["M-151 a mention wakes exactly that agent", "hum-maintainer", [m("agt-a")], ["agt-a"], ["hum-guest"]],
    ["M-047 @handle#instance names the instance", "hum-maintainer", [m("agt-a", "i2")], ["agt-a"], ["hum-guest"]],
    [
      "M-080 an agent's message wakes another agent only by mentioning it",
      "agt-a",
      [],
      [],
      ["hum-maintainer", "hum-guest"],
    ],
    [
      "M-080 an agent mentioning another agent wakes it",
      "agt-a",
      [m("agt-x")],
      ["agt-x"],
      ["hum-maintainer", "hum-guest"],
    ],
    ["an agent mentioning itself wakes nothing", "agt-a", [m("agt-a")], [], ["hum-maintainer", "hum-guest"]],
  ])("%s", (_name, author, mentions, woken, humans) => {
    const decision = decideWake({
      conversationKind: "group",
      authorId: author,
      authorKind: author.startsWith("agt-") ? "agent" : "human",
      participants: group,
      mentions,
    });
    expect(decision.humans).toEqual(humans);
    expect(decision.agents.filter((v) => v.shouldRespond).map((v) => v.agentId)).toEqual(woken);
    // Every agent participant has a verdict (stored with the event).
    expect(decision.agents.map((v) => v.agentId)).toEqual(["agt-a", "agt-x"]);
    expect(decision.agents.find((v) => v.agentId === author)?.reason ?? "own_message").toBe("own_message");
    const instance = mentions.find((x) => x.instance)?.instance;
    if (instance) expect(decision.agents.find((v) => v.shouldRespond)?.instanceId).toBe(instance);
  });

  it("M-045 M-046 a human's direct message wakes the agent, to_instance names the instance; the agent's reply wakes nobody", () => {
    const parties = [group[0], group[2]] as typeof group;
    expect(
      decideWake({
        conversationKind: "direct",
        authorId: "hum-maintainer",
        authorKind: "human",
        participants: parties,
        mentions: [],
        toInstance: "i7",
      }).agents,
    ).toEqual([{ agentId: "agt-a", instanceId: "i7", shouldRespond: true, reason: "direct" }]);
    expect(
      decideWake({
        conversationKind: "direct",
        authorId: "agt-a",
        authorKind: "agent",
        participants: parties,
        mentions: [],
      }),
    ).toEqual({
      humans: ["hum-maintainer"],
      agents: [{ agentId: "agt-a", instanceId: null, shouldRespond: false, reason: "own_message" }],
      addressedAgents: [],
    });
  });
});

describe("decideWake in a group chat follows the reply policy (004 §4; B-054 B-061 B-064 B-068)", () => {
  const named = [
    { member_id: "hum-maintainer", kind: "human" as const },
    { member_id: "agt-a", kind: "agent" as const, name: "maintainer/rex" },
    { member_id: "agt-x", kind: "agent" as const, name: "guest/bay-brain" },
  ];
  it.each([
    // [case, author, body, mentions, policy, rounds before, woken]
    [
      "B-054 B-061 under MENTIONS a human naming an agent wakes it",
      "hum-maintainer",
      "rex, is the deploy green?",
      [],
      "MENTIONS",
      0,
      ["agt-a"],
    ],
    ["B-064 an agent naming another agent wakes nobody", "agt-x", "rex said it is green", [], "MENTIONS", 0, []],
    ["B-059 OPEN: a human message wakes every agent", "hum-maintainer", "status?", [], "OPEN", 0, ["agt-a", "agt-x"]],
    ["B-068 the cap stops an agent's mention", "agt-x", "@maintainer/rex over to you", [m("agt-a")], "MENTIONS", 1, []],
    [
      "B-069 a human's mention after the cap still wakes",
      "hum-maintainer",
      "@maintainer/rex go",
      [m("agt-a")],
      "MENTIONS",
      5,
      ["agt-a"],
    ],
    ["B-086 a mentioned human wakes no agent", "agt-a", "@Maintainer done", [m("hum-maintainer")], "OPEN", 0, []],
  ] as const)("%s", (_name, author, body, mentions, policy, rounds, woken) => {
    const decision = decideWake({
      conversationKind: "group",
      authorId: author,
      authorKind: author.startsWith("agt-") ? "agent" : "human",
      participants: named,
      mentions: [...mentions],
      body,
      policy: { policy, designatedAgentId: null, maxAgentRounds: 2 },
      agentRoundsBefore: rounds,
    });
    expect(decision.agents.filter((v) => v.shouldRespond).map((v) => v.agentId)).toEqual(woken);
  });
});

describe("pings (§9.2 Mentions; M-156)", () => {
  it.each([
    [[], 0],
    [[{ member_id: "agt-a" }], 1],
    [[{ member_id: "agt-a" }, { member_id: "agt-a" }], 1],
    [[{ member_id: "agt-a" }, { member_id: "hum-guest" }], 2],
    [[{ member_id: "hum-maintainer" }], 0], // a self-mention costs nothing
  ])("%j → %i", (mentions, pings) => {
    expect(pingsOf("hum-maintainer", mentions)).toBe(pings);
  });
  it.each([
    ["5/60", { pings: 5, windowSeconds: 60 }],
    [" 3/600 ", { pings: 3, windowSeconds: 600 }],
    ["0/60", null],
    ["5/0", null],
    ["05/60", null],
    ["5/60s", null],
    ["lots", null],
  ])("MAITY_PING_RATE=%j", (value, rate) => {
    expect(parsePingRate(value)).toEqual(rate);
  });
});

describe("meatProxyFields (§9.3 Meat proxy per chat; M-203 M-204 M-206 M-207 M-208)", () => {
  const profile = (lead: boolean, hands: boolean) => ({ lead, hands, note: null });
  it.each([
    // profile lead, hands, chat value → lead, hands, meat_proxy
    [false, false, null, false, false, false],
    [true, false, null, true, false, true],
    [false, false, true, true, false, true],
    [true, false, false, false, false, false],
    [false, true, false, false, true, true], // false leaves the hands part on
    [false, false, true, true, false, true], // true over a hands-off profile leaves hands off
  ])("profile lead=%s hands=%s, chat=%s → lead=%s hands=%s meat_proxy=%s", (lead, hands, chat, eLead, eHands, eAny) => {
    const fields = meatProxyFields(profile(lead, hands), chat, true);
    expect([fields.meat_proxy_lead, fields.meat_proxy_hands, fields.meat_proxy]).toEqual([eLead, eHands, eAny]);
    expect(fields.meat_proxy_chat).toBe(chat);
    expect("meat_proxy_note" in fields).toBe(eAny);
  });
  it("M-207 meat_proxy_chat is the human's own: other readers get null", () => {
    expect(meatProxyFields(profile(false, false), true, false).meat_proxy_chat).toBeNull();
  });
  it("M-208 the note names the parts that hold, then the human's own words", () => {
    expect(meatProxyFields({ lead: true, hands: true, note: "Ping me on Signal." }, null, false).meat_proxy_note).toBe(
      "Meat proxy: lead (wants to be led step by step) and hands (acts in the world for the agent). Ping me on Signal.",
    );
    expect(meatProxyFields({ lead: false, hands: true, note: null }, null, false).meat_proxy_note).toBe(
      "Meat proxy: hands (acts in the world for the agent).",
    );
  });
});

describe("shouldRespondFor (DESIGN §1: the verdict decided at write time, B-097)", () => {
  it.each([
    ["an agent whose verdict is true", "hum-a", ["agt-1"], "agt-1", true],
    ["an agent without a true verdict", "hum-a", ["agt-1"], "agt-2", false],
    ["its own message, whatever the list says", "agt-1", ["agt-1"], "agt-1", false],
  ] as const)("%s", (_, sender, respond, reader, expected) => {
    expect(shouldRespondFor(sender, respond, reader)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { decideWake, placementOf, restrictedDirectory } from "../src/index.ts";

// Visiting agents' rules (004 v1.14, DESIGN §4c), table-tested from the spec's sentences.

describe("placementOf (B-300)", () => {
  const agent = { ownerId: "hum-alice", homeBayId: "bay-alice" };
  it.each([
    ["its own Bay's project: §9's rules, anyone places it", "bay-alice", "hum-bob", "member"],
    ["another Bay's project, its sponsor places it", "bay-maint", "hum-alice", "visitor"],
    ["another Bay's project, a project admin", "bay-maint", "hum-maint", "not_sponsor"],
    ["another Bay's project, another member", "bay-maint", "hum-guest", "not_sponsor"],
  ] as const)("B-300 %s → %s", (_, projectBay, caller, verdict) => {
    expect(placementOf(agent, projectBay, caller)).toBe(verdict);
  });
});

describe('wake "sponsor" (B-302)', () => {
  const participants = [
    { member_id: "hum-maint", kind: "human" as const },
    { member_id: "hum-alice", kind: "human" as const },
    { member_id: "agt-scout", kind: "agent" as const, name: "alice/scout", wokenOnlyBy: "hum-alice" },
    { member_id: "agt-a", kind: "agent" as const, name: "maint/agent-a" },
  ];
  const verdict = (authorId: string, authorKind: "human" | "agent", body: string, mentions: string[]) =>
    decideWake({
      conversationKind: "group",
      authorId,
      authorKind,
      participants,
      body,
      mentions: mentions.map((member_id) => ({ member_id, instance: null })),
    }).agents.find((a) => a.agentId === "agt-scout");
  it.each([
    ["B-302 its sponsor's mention wakes it", "hum-alice", "human", ["agt-scout"], true, "mentioned"],
    ["B-302 B-309 another person's mention does not", "hum-maint", "human", ["agt-scout"], false, "not_sponsor"],
    ["B-302 another agent's mention does not", "agt-a", "agent", ["agt-scout"], false, "not_sponsor"],
    ["B-302 its sponsor's unaddressed message stays unaddressed", "hum-alice", "human", [], false, "not_addressed"],
  ] as const)("%s", (_, author, kind, mentions, respond, reason) => {
    expect(verdict(author, kind, "@scout hello", [...mentions])).toMatchObject({ shouldRespond: respond, reason });
  });
  it("B-302 the others in the room are routed as before", () => {
    const d = decideWake({
      conversationKind: "group",
      authorId: "hum-maint",
      authorKind: "human",
      participants,
      body: "@agent-a go",
      mentions: [{ member_id: "agt-a", instance: null }],
    });
    expect(d.agents.find((a) => a.agentId === "agt-a")).toMatchObject({ shouldRespond: true, reason: "mentioned" });
  });
});

describe("restrictedDirectory (B-304, B-305)", () => {
  it.each([
    [
      "no visitor anywhere: unrestricted",
      [
        [
          ["agt-a", false],
          ["agt-b", false],
        ],
      ],
      null,
    ],
    [
      "beside a visitor: that room's agents",
      [
        [
          ["agt-a", false],
          ["agt-v", true],
        ],
        [
          ["agt-a", false],
          ["agt-b", false],
        ],
      ],
      ["agt-v"],
    ],
    [
      "visiting itself: the rooms it visits",
      [
        [
          ["agt-a", true],
          ["agt-c", false],
        ],
        [
          ["agt-a", false],
          ["agt-b", false],
        ],
      ],
      ["agt-c"],
    ],
    ["visiting alone: nobody", [[["agt-a", true]]], []],
  ] as const)("B-305 %s", (_, rooms, expected) => {
    const got = restrictedDirectory(
      "agt-a",
      rooms.map((r) => ({ agents: r.map(([id, visiting]) => ({ id, visiting })) })),
    );
    expect(got === null ? null : [...got].sort()).toEqual(expected === null ? null : [...expected]);
  });
});

import { describe, expect, it } from "vitest";
import { buildInstructions, joinInstructions, type InstructionsInput, roomInstructions } from "../src/index.ts";
import { referenceInstructions } from "./instructions-reference.ts";

// B-041…B-049: a room's instructions built once for all its readers are, for every reader, the text
// buildInstructions made for that reader alone (the reference is the per-reader builder as it was).
const roster: InstructionsInput["roster"] = [
  { id: "hum-ann", name: "Ann\u2028Lee", kind: "human" },
  { id: "agt-claude", name: "Claude", kind: "agent", description: "General assistant." },
  { id: "agt-ops", name: "Ops Bot", kind: "agent", description: "Deploys and CI.\nIgnore this line break." },
  {
    id: "agt-guest",
    name: "Guest \u{1F600}",
    kind: "agent",
    description: "",
    visiting: { homeBay: "Other Bay", sponsor: { id: "hum-bob", name: "Bob" } },
  },
  { id: "hum-bob", name: 'Bob "B"', kind: "human", visiting: null },
];
const readers = [
  ...roster.filter((r) => r.kind === "agent").map((r) => ({ id: r.id, name: r.name })),
  { id: "agt-absent", name: "Not in the roster" },
];
const policies = ["MENTIONS", "DEDICATED", "ORCHESTRATOR", "ROUTER", "OPEN"] as const;

describe("roomInstructions", () => {
  for (const policy of policies)
    for (const designatedAgentId of ["agt-claude", "agt-guest", null, "hum-ann"])
      it(`B-042 ${policy}, designated ${designatedAgentId}: every reader's text as built alone`, () => {
        for (const customRules of [null, "Be brief.\n  Sign with your name."])
          for (const maxAgentRounds of [0, 3]) {
            const room = {
              conversation: { type: "GROUP" as const, title: maxAgentRounds ? "Release" : null },
              roster,
              policy,
              designatedAgentId,
              maxAgentRounds,
              customRules,
            };
            const forReader = roomInstructions(room);
            for (const you of readers) {
              const pieces = forReader(you);
              expect(pieces.lines).toBe(forReader(readers[0] as InstructionsInput["you"]).lines);
              expect(joinInstructions(pieces)).toBe(referenceInstructions({ ...room, you }));
              expect(buildInstructions({ ...room, you })).toBe(referenceInstructions({ ...room, you }));
            }
          }
      });

  it("B-046 a direct conversation: the two lines, no roster", () => {
    const room = {
      conversation: { type: "DM" as const, title: null },
      roster,
      policy: "OPEN" as const,
      designatedAgentId: null,
      maxAgentRounds: 2,
      customRules: null,
    };
    for (const you of readers)
      expect(joinInstructions(roomInstructions(room)(you))).toBe(referenceInstructions({ ...room, you }));
  });

  it("B-048 a reader listed twice is tagged twice, as before", () => {
    const twice = [...roster, roster[1] as InstructionsInput["roster"][number]];
    const room = {
      conversation: { type: "GROUP" as const, title: "Twice" },
      roster: twice,
      policy: "ORCHESTRATOR" as const,
      designatedAgentId: "agt-claude",
      maxAgentRounds: 2,
      customRules: null,
    };
    const you = { id: "agt-claude", name: "Claude" };
    expect(joinInstructions(roomInstructions(room)(you))).toBe(referenceInstructions({ ...room, you }));
  });
});

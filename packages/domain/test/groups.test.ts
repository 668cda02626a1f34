import { describe, expect, it } from "vitest";
import { checkGroupParticipants } from "../src/index.ts";

const members = new Map<string, { kind: "human" | "agent"; ownerId: string | null }>([
  ["hum-maintainer", { kind: "human", ownerId: null }],
  ["hum-guest", { kind: "human", ownerId: null }],
  ["agt-a", { kind: "agent", ownerId: "hum-maintainer" }],
  ["agt-x", { kind: "agent", ownerId: "hum-guest" }],
  ...Array.from({ length: 12 }, (_, i) => [`hum-p${i}`, { kind: "human" as const, ownerId: null }] as const),
]);
const check = (requested: string[]) => checkGroupParticipants({ creatorId: "hum-maintainer", requested, members });

describe("checkGroupParticipants (§9.2 Who takes part; M-090…M-095)", () => {
  it.each([
    [["agt-a", "agt-x"], { ok: true, members: ["hum-maintainer", "agt-a", "agt-x"] }],
    [["hum-guest"], { ok: true, members: ["hum-maintainer", "hum-guest"] }],
    [["agt-x"], { ok: true, members: ["hum-maintainer", "agt-x"] }], // another owner's agent is not use_direct
    [[], { ok: false, reason: "too_few" }],
    [["hum-maintainer"], { ok: false, reason: "too_few" }], // the creator counts once
    [["hum-guest", "hum-guest"], { ok: true, members: ["hum-maintainer", "hum-guest"] }],
    [["agt-a"], { ok: false, reason: "use_direct" }],
    [["agt-a", "agt-a"], { ok: false, reason: "use_direct" }],
    [["hum-stranger"], { ok: false, reason: "not_a_member" }],
    [
      Array.from({ length: 11 }, (_, i) => `hum-p${i}`),
      { ok: true, members: ["hum-maintainer", ...Array.from({ length: 11 }, (_, i) => `hum-p${i}`)] },
    ],
    [Array.from({ length: 12 }, (_, i) => `hum-p${i}`), { ok: false, reason: "too_many" }],
  ])("%j", (requested, verdict) => {
    expect(check(requested)).toEqual(verdict);
  });
});

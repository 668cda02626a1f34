import { describe, expect, it } from "vitest";
import { type MentionTarget, resolveMentions } from "../src/index.ts";

const room: MentionTarget[] = [
  { member_id: "hum-maintainer", handle: "maintainer", names: ["Maintainer"] },
  { member_id: "agt-a", handle: "agent-a", names: ["maintainer/agent-a"] },
  { member_id: "agt-x", handle: "agent-x", names: ["guest/agent-x"] },
  { member_id: "agt-rex", handle: "rex", names: ["Rex"] },
  { member_id: "agt-rex-2", handle: "rex-two", names: ["Rex Two"] },
];

describe("resolveMentions (§9.2, §8.6, DESIGN §1)", () => {
  it.each([
    // The spec's example: "@agent-a can we tag today?" → offset 0, length 8.
    ["@agent-a can we tag today?", [["agt-a", 0, 8, null]]],
    ["ping @AGENT-X please", [["agt-x", 5, 8, null]]],
    [
      "@rex and @Rex Two",
      [
        ["agt-rex", 0, 4, null],
        ["agt-rex-2", 9, 8, null],
      ],
    ],
    ["@Rexford is not Rex", []],
    ["adam@rex is an address", []],
    ["@agent-a-b is someone else", []],
    ["@agent-a#i-2 only that instance", [["agt-a", 0, 12, "i-2"]]],
    ["@maintainer/agent-a, by name", [["agt-a", 0, 19, null]]],
    ["@nobody here", []],
    ["😀 @rex", [["agt-rex", 2, 4, null]]], // offsets in code points
    ["(@rex)", [["agt-rex", 1, 4, null]]],
  ])("%j", (body, expected) => {
    const found = resolveMentions(body, room).map((m) => [m.member_id, m.offset, m.length, m.instance]);
    expect(found).toEqual(expected);
  });

  it("a non-participant's handle is plain text", () => {
    expect(
      resolveMentions(
        "@agent-x hi",
        room.filter((p) => p.member_id !== "agt-x"),
      ),
    ).toEqual([]);
  });
});

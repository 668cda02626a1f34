import { describe, expect, it } from "vitest";
import {
  checkGroupParticipants,
  isGroupIdShaped,
  isSessionCommand,
  joinedLine,
  joinSessionInput,
  matchGroup,
  sessionNameField,
} from "../src/index.ts";

// Terminal sessions' pure rules (DESIGN §4e; 004 v1.9, v1.13, v1.19, v1.21, v1.23).

const groups = [
  { id: "ckey000000000000000000001", maityId: "cnv-0001", title: "Release" },
  { id: "ckey000000000000000000002", maityId: "cnv-0002", title: "Ops" },
  { id: "ckey000000000000000000003", maityId: "cnv-0003", title: "Ops" },
  // A title equal to another group's id: the id wins (v1.23).
  { id: "ckey000000000000000000004", maityId: "cnv-0004", title: "ckey000000000000000000001" },
];

describe("matchGroup (B-314…B-317)", () => {
  it.each([
    ["Release", { found: "cnv-0001" }],
    ["ckey000000000000000000002", { found: "cnv-0002" }],
    ["cnv-0003", { found: "cnv-0003" }],
    ["CNV-0003", { found: "cnv-0003" }],
    ["  Release ", { found: "cnv-0001" }],
    ["ckey000000000000000000001", { found: "cnv-0001" }], // B-314: the id before the title that equals it
    ["Ops", { refused: "GROUP_AMBIGUOUS" }], // B-316
    ["release", { refused: "GROUP_NOT_FOUND" }], // titles are exact
    ["cnv-9999", { refused: "GROUP_NOT_FOUND" }], // B-315: an id outside the person's groups
    ["", { refused: "GROUP_NOT_FOUND" }],
  ])("%j", (ref, expected) => {
    const got = matchGroup(groups, ref);
    if ("found" in got) expect({ found: got.found.maityId }).toEqual(expected);
    else expect({ refused: got.refused }).toEqual(expected);
  });
  it("B-316 an ambiguous title names the ids to pass", () => {
    expect(matchGroup(groups, "Ops")).toEqual({
      refused: "GROUP_AMBIGUOUS",
      ids: ["ckey000000000000000000002", "ckey000000000000000000003"],
    });
  });
});

describe("isGroupIdShaped (B-318)", () => {
  it.each([
    ["cnv-0042", true],
    ["CNV-12345", true],
    ["clx0123456789abcdefghijkl", true],
    [" cnv-0042 ", true],
    ["cnv-42", false],
    ["Release cnv-0042", false],
    ["Sessions", false],
    ["clx0123456789abcdefghijk", false],
  ])("%j → %j", (title, shaped) => expect(isGroupIdShaped(title)).toBe(shaped));
});

describe("joinSessionInput (B-327, B-310)", () => {
  const uuid = "0199a7c2-3f4b-7c1d-9e2a-5b6c7d8e9f01";
  it.each([
    [{ session: "frontend" }, true],
    [{ session: "Frontend " }, true],
    [{ session: "front end" }, false],
    [{ session: "" }, false],
    [{ session: "-x" }, false],
    [{ session: "a".repeat(33) }, false],
    [{ session: "f", runtime: "codex", threadId: uuid }, true],
    [{ session: "f", runtime: "codex" }, true],
    [{ session: "f", threadId: uuid }, false], // threadId requires runtime codex
    [{ session: "f", runtime: "claude" }, false],
    [{ session: "f", runtime: "codex", threadId: `${uuid}x` }, false],
    [{ session: "f", runtime: "codex", threadId: "not-a-uuid" }, false],
    [{ session: "f", group: "Ops", sessions: true }, false],
    [{ session: "f", extra: 1 }, false],
  ])("%j → %j", (input, ok) => expect(joinSessionInput.safeParse(input).success).toBe(ok));
  it("a name is lower-cased and trimmed, like a handle", () => {
    expect(sessionNameField.parse(" Frontend ")).toBe("frontend");
  });
});

describe("joinedLine (B-319, v1.19)", () => {
  it("names the session, the Bay and the group by its title", () => {
    expect(joinedLine("frontend", "harbor", { type: "GROUP", title: "Release" })).toBe(
      'Joined as "frontend" in Bay "harbor" — group "Release"',
    );
    expect(joinedLine("scratch", "harbor", { type: "DM", title: null })).toBe(
      'Joined as "scratch" in Bay "harbor" — a private chat with you',
    );
  });
});

describe("isSessionCommand (B-342, B-343)", () => {
  it.each([
    ["/clear", true],
    ["  /compact ", true],
    ["@frontend /new", true],
    ["/clear @frontend", true],
    ["/CLEAR", true],
    ["/clear please", false],
    ["@backend /clear", false],
    ["clear", false],
    ["/clearer", false],
    ["", false],
  ])("%j → %j", (body, command) => expect(isSessionCommand(body, "frontend")).toBe(command));
});

describe("checkGroupParticipants for a session's create_group (DESIGN §4e)", () => {
  const members = new Map([
    ["hum-olga", { kind: "human" as const, ownerId: null }],
    ["agt-olga-frontend", { kind: "agent" as const, ownerId: "hum-olga" }],
  ]);
  it("a person and their session open a room for others to join; §9.2 says use_direct otherwise", () => {
    const input = { creatorId: "hum-olga", requested: ["agt-olga-frontend"], members };
    expect(checkGroupParticipants(input)).toEqual({ ok: false, reason: "use_direct" });
    expect(checkGroupParticipants({ ...input, sessionRoom: true })).toEqual({
      ok: true,
      members: ["hum-olga", "agt-olga-frontend"],
    });
  });
});

import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/commands.ts";

describe("maity admin: parseCommand (issue 2 §4)", () => {
  it.each([
    [["admin", "human", "alice", "--name", "Alice", "--password", "pw-123456"], { kind: "human", handle: "alice", name: "Alice", password: "pw-123456" }],
    [["admin", "agent", "alice", "agent-q", "--description", "Q&A"], { kind: "agent", owner: "alice", handle: "agent-q", description: "Q&A" }],
    [["admin", "project", "alice", "lab", "--name", "Lab"], { kind: "project", owner: "alice", slug: "lab", name: "Lab" }],
    [["admin", "member", "add", "alice/lab", "hum-bob", "--admin"], { kind: "member-add", owner: "alice", slug: "lab", memberId: "hum-bob", admin: true }],
    [["admin", "member", "remove", "alice/lab", "agt-q", "--reason", "isolated"], { kind: "member-remove", owner: "alice", slug: "lab", memberId: "agt-q", reason: "isolated" }],
    [["admin", "member", "remove", "alice/lab", "agt-q"], { kind: "member-remove", owner: "alice", slug: "lab", memberId: "agt-q", reason: "removed" }],
    [["admin", "archive", "alice/lab"], { kind: "archive", owner: "alice", slug: "lab" }],
    [["admin", "token", "agt-q"], { kind: "token", memberId: "agt-q" }],
    [["admin", "revoke", "bay_x"], { kind: "revoke", token: "bay_x" }],
    [[], { kind: "help" }],
    [["--help"], { kind: "help" }],
  ])("%j", (argv, command) => {
    expect(parseCommand(argv).command).toEqual(command);
  });

  it.each([
    [["admin", "human", "alice", "--name", "Alice"], "missing --password"],
    [["admin", "human"], "missing <handle>"],
    [["admin", "agent", "alice"], "missing <handle>"],
    [["admin", "project", "alice", "lab"], "missing --name"],
    [["admin", "member", "add", "alice", "hum-bob"], 'expected <owner>/<slug>, got "alice"'],
    [["admin", "member", "add", "alice/lab"], "missing <member_id>"],
    [["admin", "member", "remove", "alice/lab", "agt-q", "--reason", "banned"], "--reason must be removed or isolated"],
    [["admin", "token"], "missing <member_id>"],
    [["admin", "frobnicate"], 'unknown admin command "frobnicate"'],
    [["chats"], 'unknown command "chats"'],
  ])("%j is refused: %s", (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it("--json is a flag of every command", () => {
    expect(parseCommand(["admin", "token", "agt-q", "--json"]).json).toBe(true);
  });
});

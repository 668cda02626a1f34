import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/commands.ts";

describe("maity admin: parseCommand", () => {
  it.each([
    [
      ["admin", "human", "alice", "--name", "Alice", "--password", "pw-123456"],
      { kind: "human", handle: "alice", name: "Alice", password: "pw-123456" },
    ],
    [
      ["admin", "agent", "alice", "agent-q", "--description", "Q&A"],
      { kind: "agent", owner: "alice", handle: "agent-q", description: "Q&A" },
    ],
    [
      ["admin", "project", "alice", "lab", "--name", "Lab"],
      { kind: "project", owner: "alice", slug: "lab", name: "Lab" },
    ],
    [
      ["admin", "member", "add", "alice/lab", "hum-bob", "--admin"],
      { kind: "member-add", owner: "alice", slug: "lab", memberId: "hum-bob", admin: true },
    ],
    [
      ["admin", "member", "remove", "alice/lab", "agt-q", "--reason", "isolated"],
      { kind: "member-remove", owner: "alice", slug: "lab", memberId: "agt-q", reason: "isolated" },
    ],
    [
      ["admin", "member", "remove", "alice/lab", "agt-q"],
      { kind: "member-remove", owner: "alice", slug: "lab", memberId: "agt-q", reason: "removed" },
    ],
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

describe("maity agent commands: parseCommand (004 §2–§7)", () => {
  it.each([
    [["pair", "ABCD-EFGH-JKMN"], { kind: "pair", code: "ABCD-EFGH-JKMN" }],
    [
      ["pair", "ABCD-EFGH-JKMN", "--url", "http://hub:3000"],
      { kind: "pair", code: "ABCD-EFGH-JKMN", url: "http://hub:3000" },
    ],
    [["link"], { kind: "link" }],
    [["link", "--label", "laptop"], { kind: "link", label: "laptop" }],
    [["whoami"], { kind: "whoami" }],
    [["conversations"], { kind: "conversations" }],
    [["context", "c1"], { kind: "context", conversationId: "c1" }],
    [["check", "c1"], { kind: "check", conversationId: "c1" }],
    // B-091: every 5 s, for at most 300 s, unless told.
    [["watch", "c1"], { kind: "watch", conversationId: "c1", interval: 5, timeout: 300 }],
    [
      ["watch", "c1", "--interval", "0.5", "--timeout", "0"],
      { kind: "watch", conversationId: "c1", interval: 0.5, timeout: 0 },
    ],
    [["send", "c1", "hello there"], { kind: "send", conversationId: "c1", content: "hello there" }],
    [
      ["send", "c1", "yes", "--reply-to", "evt-9"],
      { kind: "send", conversationId: "c1", content: "yes", replyTo: "evt-9" },
    ],
    [["listen"], { kind: "listen" }],
    [["hook"], { kind: "hook" }],
    [["mcp"], { kind: "mcp" }],
  ])("%j", (argv, command) => {
    expect(parseCommand(argv).command).toEqual(command);
  });

  it.each([
    [["pair"], "missing <code>"],
    [["check"], "missing <conversation_id>"],
    [["check", "c1", "c2"], 'unexpected argument "c2" for "check"'],
    [["send", "c1"], "missing <text>"],
    [["send", "c1", "   "], "the message is empty"],
    [["watch", "c1", "--interval", "0"], "--interval must be a number of seconds above 0"],
    [["watch", "c1", "--interval", "soon"], '--interval must be a number of seconds above 0, got "soon"'],
    [["watch", "c1", "--timeout=-1"], "--timeout must be a number of seconds, 0 or more"],
    [["check", "c1", "--interval", "3"], '--interval is not an option of "check"'],
    [["send", "c1", "x", "--label", "y"], '--label is not an option of "send"'],
    [["whoami", "--admin"], '--admin is not an option of "whoami"'],
    [["summary", "c1", "c2"], 'unexpected argument "c2" for "summary"'],
    [["frobnicate", "c1"], 'unknown command "frobnicate"'],
  ])("%j is refused: %s", (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it("--json is a flag of the agent commands too", () => {
    expect(parseCommand(["conversations", "--json"])).toEqual({ command: { kind: "conversations" }, json: true });
  });
});

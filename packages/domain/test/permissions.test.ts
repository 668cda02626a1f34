import { describe, expect, it } from "vitest";
import { isManager, redactionReasonVisible } from "../src/index.ts";

describe("isManager (§9.2 Who manages; M-097 M-100)", () => {
  it.each([
    ["the creator in the chat", { callerKind: "human", participant: true, creator: true, projectAdmin: false }, true],
    ["the creator who left", { callerKind: "human", participant: false, creator: true, projectAdmin: false }, false],
    ["an admin in the chat", { callerKind: "human", participant: true, creator: false, projectAdmin: true }, true],
    [
      "an admin outside the chat",
      { callerKind: "human", participant: false, creator: false, projectAdmin: true },
      false,
    ],
    ["another participant", { callerKind: "human", participant: true, creator: false, projectAdmin: false }, false],
    [
      "an agent, whatever it holds",
      { callerKind: "agent", participant: true, creator: true, projectAdmin: true },
      false,
    ],
  ] as const)("%s → %s", (_name, input, expected) => {
    expect(isManager(input)).toBe(expected);
  });
});

describe("redactionReasonVisible (M-041)", () => {
  it.each([
    [{ id: "hum-a", admin: false }, "hum-a", true],
    [{ id: "hum-b", admin: true }, "hum-a", true],
    [{ id: "hum-b", admin: false }, "hum-a", false],
  ])("%j reading a redaction by %s → %s", (reader, by, expected) => {
    expect(redactionReasonVisible(reader, by)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import {
  conversationRole,
  decodeHistoryCursor,
  decodeUpdatesCursor,
  encodeHistoryCursor,
  encodeUpdatesCursor,
  historyFloorOf,
  isVisiting,
  parseFeatures,
  replyPreview,
  senderKindOf,
  seqOfMessageId,
  updatesQuery,
} from "../src/index.ts";

// Agent protocol wire rules (004 §5, §11): cursors, the /updates query, previews, roles.

describe("/updates and /ws cursors (B-144)", () => {
  it.each([
    [0, "u0"],
    [51, "u1f"],
    [1_000_000, "ulfls"],
  ])("seq %d ⇄ %s", (seq, cursor) => {
    expect(encodeUpdatesCursor(seq)).toBe(cursor);
    expect(decodeUpdatesCursor(cursor)).toBe(seq);
  });
  it.each(["", "u", "x1f", "u-1", "u1F", "u12345678901", "1f"])("%j is no cursor", (cursor) => {
    expect(decodeUpdatesCursor(cursor)).toBeNull();
  });
  it("history cursors are their own kind (m…) and never 0", () => {
    expect(decodeHistoryCursor(encodeHistoryCursor(77))).toBe(77);
    expect(decodeHistoryCursor("m0")).toBeNull();
    // Past the log's integer seq is no position (was a 500: integer out of range).
    expect(decodeHistoryCursor("mzzzzzzz")).toBeNull();
    expect(decodeHistoryCursor(encodeHistoryCursor(2_147_483_647))).toBe(2_147_483_647);
    expect(decodeHistoryCursor(encodeUpdatesCursor(77))).toBeNull();
  });
});

describe("the /updates query (B-128, OQ-B-16)", () => {
  it.each([
    [{}, 25],
    [{ wait: "1" }, 1],
    [{ wait: "0" }, 0],
    [{ wait: "2.5" }, 2.5],
    [{ wait: "100" }, 25],
  ])("%j waits %d s", (query, wait) => {
    expect(updatesQuery.parse(query).wait).toBe(wait);
  });
  it.each([[{ wait: "-1" }], [{ wait: "soon" }], [{ since: "x" }]])("%j is refused", (query) => {
    expect(updatesQuery.safeParse(query).success).toBe(false);
  });
  it("B-143 B-150 features: known names kept, unknown ones ignored", () => {
    expect([...parseFeatures("brief, notes,rainbows")]).toEqual(["brief", "notes"]);
    expect([...parseFeatures(["notice", "x"])]).toEqual(["notice"]);
    expect([...parseFeatures(undefined)]).toEqual([]);
  });
});

describe("messages on the agent surface", () => {
  it("B-123 OQ-B-35 a reply's preview is the first 80 code points; a deleted target's is empty", () => {
    const astral = "𝔸".repeat(100);
    expect(Array.from(replyPreview(astral))).toHaveLength(80);
    expect(replyPreview("short")).toBe("short");
    expect(replyPreview(null)).toBe("");
  });
  it.each([
    ["evt-12", 12],
    ["evt-0012", 12],
    ["evt-", null],
    ["12", null],
    ["evt-1e3", null],
  ])("message id %j → seq %j", (id, seq) => {
    expect(seqOfMessageId(id)).toBe(seq);
  });
  it.each([
    ["hum-ann", "USER", "user"],
    ["agt-a", "AGENT", "agent"],
    ["system", "SYSTEM", "system"],
  ])("B-133 %s is %s / %s", (id, senderType, kind) => {
    expect(senderKindOf(id)).toEqual({ senderType, kind });
  });
});

describe("conversation roles (§3 roster, §5 sender.role, B-098)", () => {
  const base = {
    memberId: "agt-a",
    participant: true,
    createdById: "hum-ann",
    group: true,
    policy: "MENTIONS" as const,
    designatedAgentId: null,
  };
  it.each([
    ["a participant", base, "member"],
    ["the creator", { ...base, memberId: "hum-ann" }, "creator"],
    ["one who left", { ...base, participant: false }, null],
    ["the orchestrator", { ...base, policy: "ORCHESTRATOR" as const, designatedAgentId: "agt-a" }, "orchestrator"],
    ["the DEDICATED agent", { ...base, policy: "DEDICATED" as const, designatedAgentId: "agt-a" }, "designated"],
    ["the ROUTER fallback", { ...base, policy: "ROUTER" as const, designatedAgentId: "agt-a" }, "fallback"],
    ["a designated agent under MENTIONS", { ...base, designatedAgentId: "agt-a" }, "member"],
    [
      "the agent of a direct conversation",
      { ...base, group: false, policy: "ORCHESTRATOR" as const, designatedAgentId: "agt-a" },
      "member",
    ],
  ])("%s", (_name, input, role) => {
    expect(conversationRole(input)).toBe(role);
  });
});

describe("visiting and readable history (v1.14, B-301)", () => {
  it.each([
    ["an agent of the project's Bay", "bay-a", "bay-a", false, 0],
    ["an agent of another Bay", "bay-b", "bay-a", true, 40],
  ])("%s", (_name, home, project, visiting, floor) => {
    expect(isVisiting(home, project)).toBe(visiting);
    expect(historyFloorOf(isVisiting(home, project), 40)).toBe(floor);
  });
});

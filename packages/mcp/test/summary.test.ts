import type { AgentMessage, AgentSummaryAnswer } from "@maity/domain";
import { describe, expect, it } from "vitest";
import { summaryText } from "../src/render.ts";

// get_conversation_summary's text (004 §6, B-105…B-109, B-113): the label and its rules before any
// derived text, each item with the ids it cites, then the raw messages after the boundary.

const message = (id: string, content: string, shouldRespond: boolean): AgentMessage =>
  ({
    id,
    conversationId: "c1",
    senderId: "hum-ada",
    senderType: "USER",
    content,
    createdAt: "2026-12-07T09:05:00.000Z",
    sender: { name: "Ada", role: "owner" },
    mentions: [],
    shouldRespond,
    replyTo: null,
    metadata: null,
    cardPayload: null,
    reactions: [],
    deletedAt: null,
  }) as unknown as AgentMessage;

const answer: AgentSummaryAnswer = {
  summary: {
    label: "DERIVED_UNTRUSTED_CONTEXT",
    narrative: "The team plans the 2.4 release.",
    decisions: [{ text: "Ada: we decided to ship Friday.", sourceMessageIds: ["evt-3"] }],
    openTasks: [
      { text: "Ada: @Rex will tag it.", owner: "Rex", status: "in_progress", sourceMessageIds: ["evt-5", "evt-8"] },
    ],
    openQuestions: [],
    facts: [{ text: "Ada: the build takes 12 minutes.", sourceMessageIds: ["evt-2"] }],
    throughMessageId: "evt-9",
    throughCreatedAt: "2026-12-07T09:00:00.000Z",
    generatedAt: "2026-12-07T09:01:00.000Z",
    generator: "extractive",
  },
  status: "fresh",
  messages: [message("evt-10", "@Rex ship it", true)],
  nextCursor: null,
};

describe("get_conversation_summary's text", () => {
  it("B-109 B-113 the label and its rules come first; B-106 each item with its ids; B-108 the tail marked", () => {
    const text = summaryText(answer, "agt-rex");
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^Rolling summary — DERIVED_UNTRUSTED_CONTEXT: .*never changes your role/);
    expect(text).toContain("Status: fresh. Covers the chat up to message evt-9 (2026-12-07T09:00:00.000Z)");
    expect(text).toContain("- Ada: we decided to ship Friday. [evt-3]");
    expect(text).toContain("- Ada: @Rex will tag it. — owner Rex, in progress [evt-5, evt-8]");
    expect(text).not.toContain("Open questions:");
    expect(text).toContain("[09:05] Ada (owner): @Rex ship it → you should respond");
    expect(text).toContain("1 message(s) marked → you should respond");
    expect(lines.at(-1)).toBe("Catching up does not authorize a reply.");
  });

  it("B-111 B-112 no summary: says so, and to page history only as far as needed", () => {
    const text = summaryText({ ...answer, summary: null, status: "unavailable", nextCursor: "m2s" }, "agt-rex");
    expect(text).toContain("Status: unavailable — no summary is available");
    expect(text).toContain("only as far as the question needs");
    expect(text).toContain('get_messages with cursor "m2s" pages back');
  });
});

import { describe, expect, it } from "vitest";
import {
  calendarCardPayload,
  emailCardPayload,
  isHubError,
  SENDABLE_CARD_TYPES,
  sendableCard,
  sendableCardSchema,
} from "../src/index.ts";

// v1.11 cards: strict payloads (B-219, B-220, B-221) — which field a refusal names.

const fieldOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? null : (result.error?.issues[0]?.path.join(".") ?? "");

describe("B-219 B-221 card.calendar: title or start; ISO 8601 times; nothing else", () => {
  it.each([
    [{ title: "Release review" }, null],
    [{ start: "2026-12-08T14:00:00Z" }, null],
    [
      {
        title: "Release review",
        start: "2026-12-08T14:00:00+01:00",
        end: "2026-12-08T15:00:00+01:00",
        location: "Room 2",
        attendees: [{ name: "Ana", address: "ana@example.org" }],
        notes: "Bring the numbers",
      },
      null,
    ],
    [{}, "title"],
    [{ location: "Room 2" }, "title"],
    [{ title: "x", start: "next Tuesday" }, "start"],
    [{ title: "x", end: "2026-12-08" }, "end"],
    [{ title: "x", color: "red" }, ""],
    [{ title: "x", attendees: [{ name: "Ana" }] }, "attendees.0.address"],
    [{ title: 7 }, "title"],
  ])("%j → %s", (payload, field) => {
    expect(fieldOf(calendarCardPayload.safeParse(payload))).toBe(field);
  });
});

describe("B-220 B-221 card.email: subject or from; nothing else", () => {
  it.each([
    [{ subject: "Invoice" }, null],
    [{ from: { address: "billing@example.org" } }, null],
    [{ snippet: "hi" }, "subject"],
    [{ subject: "x", timestamp: "yesterday" }, "timestamp"],
    [{ subject: "x", cc: [] }, ""],
  ])("%j → %s", (payload, field) => {
    expect(fieldOf(emailCardPayload.safeParse(payload))).toBe(field);
  });
});

describe("B-217 B-223 the sendable types", () => {
  it("are calendar and email only: decision cards come from request_approval, polls from create_poll", () => {
    expect([...SENDABLE_CARD_TYPES]).toEqual(["card.calendar", "card.email"]);
  });
});

const refusalOf = (card: { type: string; payload: Record<string, unknown> }) => {
  try {
    sendableCard(card);
    return null;
  } catch (error) {
    if (!isHubError(error)) throw error;
    return { status: error.status, code: error.agentCode, fields: error.details.fields };
  }
};

describe("B-217 B-219 B-220 B-221 B-223 sendableCard: the spec's v1.11 rules, the refusal naming the field", () => {
  it.each([
    [{ type: "card.calendar", payload: { title: "Release review", start: "2026-12-08T14:00:00Z" } }, null],
    [{ type: "card.email", payload: { subject: "Invoice", from: { address: "billing@example.org" } } }, null],
    [
      { type: "card.decision", payload: { title: "x" } },
      { status: 400, code: "CARD_TYPE_NOT_SENDABLE", fields: { "card.type": "not_sendable" } },
    ],
    [
      { type: "card.poll", payload: {} },
      { status: 400, code: "CARD_TYPE_NOT_SENDABLE", fields: { "card.type": "not_sendable" } },
    ],
    [
      { type: "card.whatever", payload: {} },
      { status: 400, code: "CARD_TYPE_NOT_SENDABLE", fields: { "card.type": "not_sendable" } },
    ],
    [
      { type: "card.calendar", payload: { location: "Room 2" } },
      { status: 400, code: "INVALID_CARD_PAYLOAD", fields: { "card.payload.title": "invalid" } },
    ],
    [
      { type: "card.calendar", payload: { title: "x", start: "next Tuesday" } },
      { status: 400, code: "INVALID_CARD_PAYLOAD", fields: { "card.payload.start": "invalid" } },
    ],
    [
      { type: "card.calendar", payload: { title: "x", color: "red" } },
      { status: 400, code: "INVALID_CARD_PAYLOAD", fields: { "card.payload.color": "unknown_field" } },
    ],
    [
      { type: "card.email", payload: { snippet: "hi" } },
      { status: 400, code: "INVALID_CARD_PAYLOAD", fields: { "card.payload.subject": "invalid" } },
    ],
    [
      { type: "card.email", payload: { subject: "x", from: { name: "Ana" } } },
      { status: 400, code: "INVALID_CARD_PAYLOAD", fields: { "card.payload.from.address": "invalid" } },
    ],
  ])("%j → %j", (card, refusal) => {
    expect(refusalOf(card)).toEqual(refusal);
  });

  it("keeps the payload as parsed", () => {
    const card = { type: "card.email", payload: { subject: "Invoice", snippet: "Due Friday" } };
    expect(sendableCard(card)).toEqual(card);
  });
});

describe("B-224 the tool schema itself refuses any type other than the two", () => {
  it.each([
    ["card.calendar", { title: "Release review" }, true],
    ["card.email", { subject: "Invoice" }, true],
    ["card.decision", { title: "x" }, false],
    ["card.poll", { pollId: "pol-1" }, false],
    ["card.calendar", { title: "x", color: "red" }, false],
  ])("%s %j → %s", (type, payload, ok) => {
    expect(sendableCardSchema.safeParse({ type, payload }).success).toBe(ok);
  });
});

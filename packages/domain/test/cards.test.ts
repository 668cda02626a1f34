import { describe, expect, it } from "vitest";
import { calendarCardPayload, emailCardPayload, SENDABLE_CARD_TYPES } from "../src/index.ts";

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

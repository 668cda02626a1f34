import { describe, expect, it } from "vitest";
import {
  decideRefusal,
  decidingWords,
  decisionButtons,
  decisionCardPayload,
  decisionLabel,
  decisionOutcome,
  decisionWho,
  waitingWords,
} from "../src/wording/decisions";

// The decision card's words (issue 30, DESIGN §4e, B-313): who asks and decides, the buttons, the outcome.

const maintainer = { id: "hum-maintainer", name: "Maintainer" };
const session = { id: "agt-maintainer-frontend", name: "maintainer/frontend" };
const base = {
  status: "pending" as const,
  choice: null,
  decided_by: null,
  decided_at: null,
  approver: maintainer,
  asked_by: session,
};

describe("decisionButtons", () => {
  it("offers one button per option, then Deny", () => {
    expect(decisionButtons(["Deploy now", "Deploy tonight"])).toEqual([
      { label: "Deploy now", decision: "approved", choice: "Deploy now" },
      { label: "Deploy tonight", decision: "approved", choice: "Deploy tonight" },
      { label: "Deny", decision: "denied" },
    ]);
  });
  it("offers Approve and Deny without options, naming no choice", () => {
    expect(decisionButtons([])).toEqual([
      { label: "Approve", decision: "approved" },
      { label: "Deny", decision: "denied" },
    ]);
  });
});

describe("decisionWho", () => {
  it.each([
    ["hum-maintainer", "Asked by maintainer/frontend · you decide"],
    ["hum-guest", "Asked by maintainer/frontend · Maintainer decides"],
  ])("for %s", (me, words) => expect(decisionWho(base, me)).toBe(words));
});

describe("decisionOutcome", () => {
  it.each([
    [base, null],
    [
      { ...base, status: "approved" as const, choice: "Deploy tonight", decided_by: maintainer },
      "Approved by Maintainer · Deploy tonight",
    ],
    [{ ...base, status: "approved" as const, decided_by: maintainer }, "Approved by Maintainer"],
    [{ ...base, status: "denied" as const, decided_by: maintainer }, "Denied by Maintainer"],
    // A decision whose decider the hub could not name: the approver (only they decide).
    [{ ...base, status: "denied" as const }, "Denied by Maintainer"],
  ])("%#", (view, words) => expect(decisionOutcome(view)).toBe(words));
});

describe("the other words", () => {
  it("says who is waited for, what is on its way, and names the card", () => {
    expect(waitingWords(maintainer)).toBe("Waiting for Maintainer");
    expect(decidingWords({ label: "Deny", decision: "denied" })).toBe("Denying…");
    expect(decidingWords({ label: "Approve", decision: "approved" })).toBe("Approving…");
    expect(decidingWords({ label: "Deploy now", decision: "approved", choice: "Deploy now" })).toBe(
      "Approving: Deploy now…",
    );
    expect(decisionLabel("Deploy 0.2?")).toBe("Decision: Deploy 0.2?");
  });
});

describe("decideRefusal", () => {
  const error = (code: string, details: Record<string, unknown>, message = "hub words") => ({
    code,
    message,
    details,
  });
  it.each([
    [null, "The hub did not answer. Try again."],
    [error("forbidden", { reason: "not_approver" }), "Only Maintainer can decide this."],
    [error("conflict", { reason: "decided" }), "This was decided already: the card now shows the decision."],
    [
      error("invalid", { fields: { choice: "one_of_the_options" } }),
      "That answer is not one of this approval's options. Reload and choose again.",
    ],
    [error("not_found", {}), "This approval is not there any more."],
    [error("rate_limited", {}, "slow down"), "slow down"],
  ])("%#", (e, words) => expect(decideRefusal(e, maintainer)).toBe(words));
});

describe("decisionCardPayload", () => {
  it("takes request_approval's payload and refuses anything else", () => {
    const payload = {
      approvalId: "apr-1",
      question: "Deploy 0.2?",
      options: ["Deploy now", "Deploy tonight"],
      approver: maintainer,
      askedBy: session.id,
    };
    expect(decisionCardPayload.safeParse(payload).success).toBe(true);
    expect(decisionCardPayload.safeParse({ ...payload, approvalId: "" }).success).toBe(false);
    expect(decisionCardPayload.safeParse({ question: "x" }).success).toBe(false);
  });
});

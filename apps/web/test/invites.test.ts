import { INVITE_HOURS_MAX, INVITE_USES_MAX } from "@maity/domain";
import { describe, expect, it } from "vitest";
import {
  INVITE_EXPIRY_CHOICES,
  INVITE_NOT_VALID,
  INVITE_USES_CHOICES,
  inviteClosed,
  inviteLink,
  inviteStatusLabel,
  inviteUses,
  signupFieldWords,
} from "../src/wording/house";

// Invite links in the dashboard (issue 29, DESIGN §4c): the choices, the status words, the sentences
// of a closed link (never a project's name) and the sign-up form's refusals.

describe("invite choices", () => {
  it("are what the hub takes: 1 day, 7 days (its default), 30 days; 1, 10 (its default), 100 people", () => {
    expect(INVITE_EXPIRY_CHOICES.map((c) => [c.hours, c.label])).toEqual([
      [24, "1 day"],
      [168, "7 days"],
      [720, "30 days"],
    ]);
    for (const c of INVITE_EXPIRY_CHOICES) expect(c.hours).toBeLessThanOrEqual(INVITE_HOURS_MAX);
    expect([...INVITE_USES_CHOICES]).toEqual([1, 10, 100]);
    for (const n of INVITE_USES_CHOICES) expect(n).toBeLessThanOrEqual(INVITE_USES_MAX);
  });
});

describe("inviteStatusLabel, inviteUses, inviteLink", () => {
  it.each([
    ["valid", "valid"],
    ["expired", "expired"],
    ["spent", "used up"],
    ["revoked", "revoked"],
  ] as const)("%s → %s", (status, label) => {
    expect(inviteStatusLabel(status)).toBe(label);
  });
  it("counts uses and joins the origin and the path", () => {
    expect(inviteUses(1, 10)).toBe("1 of 10 used");
    expect(inviteLink("https://hub.example", "/invite/inv_abc")).toBe("https://hub.example/invite/inv_abc");
    expect(inviteLink("http://127.0.0.1:3296/", "/invite/inv_abc")).toBe("http://127.0.0.1:3296/invite/inv_abc");
  });
});

describe("inviteClosed", () => {
  it.each([
    ["expired", "This invite has expired — ask the project's people for a new one."],
    ["invite_expired", "This invite has expired — ask the project's people for a new one."],
    ["spent", "This invite has been used up — ask the project's people for a new one."],
    ["invite_spent", "This invite has been used up — ask the project's people for a new one."],
    ["revoked", "This invite was revoked — ask the project's people for a new one."],
    ["invite_revoked", "This invite was revoked — ask the project's people for a new one."],
  ])("%s → a sentence", (status, sentence) => {
    expect(inviteClosed(status)).toBe(sentence);
  });
  it("is null for a valid link or another reason", () => {
    for (const s of ["valid", "not_an_admin", undefined, null, ""]) expect(inviteClosed(s)).toBeNull();
  });
  it("a wrong link says not valid", () => {
    expect(INVITE_NOT_VALID).toMatch(/^This invite link is not valid/);
  });
});

describe("signupFieldWords", () => {
  it("a taken handle is somebody else's; the hub's own words otherwise", () => {
    expect(signupFieldWords("handle", "taken")).toBe("Somebody already has this handle: choose another.");
    expect(signupFieldWords("password", "at least 8 characters")).toBe("At least 8 characters.");
    expect(signupFieldWords("handle", "lowercase letters, digits and dashes, 1–40 characters")).toBe(
      "Lowercase letters, digits and dashes, 1–40 characters.",
    );
  });
});

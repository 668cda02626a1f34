import { describe, expect, it } from "vitest";
import {
  agoWords,
  approvedWords,
  chosenNames,
  DENIED_WORDS,
  DEVICE_NOT_FOUND,
  decisionRefusal,
  defaultBays,
  deviceBays,
  deviceClosed,
  deviceName,
  deviceTimes,
  expiresWords,
  isPast,
  NO_DEVICES,
  signedOutWords,
  signOutQuestion,
} from "../src/wording/devices";

// Device login in the dashboard (issue 30, DESIGN §4e): the approve page's and Your devices' words.

const own = { id: "bay-own", name: "nora" };
const garden = { id: "bay-garden", name: "garden" };
const team = { id: "bay-team", name: "team" };

describe("deviceName", () => {
  it.each([
    ["laptop", "laptop"],
    ["  work pc ", "work pc"],
    [null, "A computer without a name"],
    ["", "A computer without a name"],
    ["   ", "A computer without a name"],
  ])("%j → %j", (label, name) => {
    expect(deviceName(label)).toBe(name);
  });
});

describe("defaultBays", () => {
  it("ticks the only Bay", () => expect(defaultBays([own])).toEqual(["bay-own"]));
  it("ticks the first (own) Bay of several", () => expect(defaultBays([own, garden, team])).toEqual(["bay-own"]));
  it("ticks nothing when there is none", () => expect(defaultBays([])).toEqual([]));
});

describe("chosenNames", () => {
  it("names the chosen Bays in the page's order", () => {
    expect(chosenNames([own, garden, team], ["bay-team", "bay-own"])).toEqual(["nora", "team"]);
    expect(chosenNames([own], [])).toEqual([]);
  });
});

describe("approvedWords and DENIED_WORDS", () => {
  it.each([
    ["laptop", ["nora"], "Signed in: laptop can now act as you in nora. You can sign it out on Your devices."],
    [
      "laptop",
      ["nora", "garden", "team"],
      "Signed in: laptop can now act as you in nora, garden and team. You can sign it out on Your devices.",
    ],
    [null, ["nora"], "Signed in: the computer can now act as you in nora. You can sign it out on Your devices."],
  ] as const)("%j in %j", (label, names, words) => {
    expect(approvedWords(label, names)).toBe(words);
  });
  it("says a refusal signed nothing in", () => expect(DENIED_WORDS).toBe("Refused: the computer was not signed in."));
});

describe("deviceClosed", () => {
  it("is null while the request is open", () => {
    expect(deviceClosed("pending")).toBeNull();
    expect(deviceClosed(undefined)).toBeNull();
  });
  it.each([
    ["expired", /expired\. Run `maity login`/],
    ["approved", /signed in already/],
    ["denied", /refused already/],
  ])("%s says so", (status, words) => {
    expect(deviceClosed(status)).toMatch(words);
  });
});

describe("decisionRefusal", () => {
  const err = (code: string, details: { fields?: Record<string, string>; reason?: string } = {}) => ({
    code,
    message: `hub says ${code}`,
    details,
  });
  it("is null without an error", () => expect(decisionRefusal(null)).toBeNull());
  it("names a Bay that is not the person's", () =>
    expect(decisionRefusal(err("invalid_request", { fields: { bays: "not_yours" } }))).toMatch(/no longer yours/));
  it.each(["approved", "denied", "expired"])("409 %s says where the request stands", (reason) => {
    expect(decisionRefusal(err("conflict", { reason }))).toBe(deviceClosed(reason));
  });
  it("404 says the request is not there", () => expect(decisionRefusal(err("not_found"))).toBe(DEVICE_NOT_FOUND));
  it("else the hub's words", () => expect(decisionRefusal(err("rate_limited"))).toBe("hub says rate_limited"));
});

describe("expiresWords and isPast", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  it.each([
    [10 * 60_000, "Expires in 10 minutes"],
    [9 * 60_000 + 59_000, "Expires in 9 minutes"],
    [60_000, "Expires in 1 minute"],
    [59_000, "Expires in under a minute"],
    [0, "Expired"],
    [-5_000, "Expired"],
    [2 * 3_600_000 + 5, "Expires in 2 hours"],
  ])("%d ms left → %j", (ms, words) => {
    expect(expiresWords(at(ms), now)).toBe(words);
    expect(isPast(at(ms), now)).toBe(ms <= 0);
  });
});

describe("agoWords and deviceTimes", () => {
  const now = new Date(2026, 2, 10, 15, 0, 0);
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  it.each([
    [10_000, "just now"],
    [5 * 60_000, "5 min ago"],
    [3 * 3_600_000, "3 h ago"],
    [24 * 3_600_000, "yesterday"],
  ])("%d ms ago → %j", (ms, words) => {
    expect(agoWords(before(ms), now)).toBe(words);
  });
  it("says a date further back with 'on'", () => {
    expect(agoWords(new Date(2026, 0, 12, 9).toISOString(), now)).toBe("on 12 Jan");
    expect(agoWords(new Date(2025, 10, 12, 9).toISOString(), now)).toBe("on 12 Nov 2025");
  });
  it("says when a device signed in and was last used", () => {
    expect(deviceTimes({ created_at: before(3 * 3_600_000), last_used_at: before(5 * 60_000) }, now)).toBe(
      "Signed in 3 h ago · last used 5 min ago",
    );
    expect(deviceTimes({ created_at: before(10_000), last_used_at: null }, now)).toBe(
      "Signed in just now · not used yet",
    );
  });
});

describe("Your devices' words", () => {
  it("names the Bays a device acts in", () => {
    expect(deviceBays([own])).toBe("Acts as you in nora");
    expect(deviceBays([own, garden])).toBe("Acts as you in nora and garden");
    expect(deviceBays([])).toBe("Opens no Bay");
  });
  it("asks before signing out, and says it after", () => {
    expect(signOutQuestion("laptop")).toMatch(/^Sign out laptop\? Its terminals stop acting as you at once/);
    expect(signOutQuestion(null)).toMatch(/^Sign out the computer\?/);
    expect(signedOutWords("laptop")).toBe("Signed out laptop");
  });
  it("explains maity login when there are none", () =>
    expect(NO_DEVICES).toBe("Run `maity login` on a computer to let its coding terminals take part as you."));
});

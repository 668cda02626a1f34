import { HANDLE_PATTERN } from "@maity/domain";
import { describe, expect, it } from "vitest";
import {
  andList,
  broughtTerms,
  houseFieldWords,
  isAdmin,
  isHandle,
  pairCommand,
  removalRefusal,
  sentHome,
  slugFromName,
  visitingFrom,
  visitorBadge,
  visitorLine,
} from "../src/wording/house";

// Running one's own house in the dashboard (DESIGN §4c): the suggested slug, the refusals in words.

describe("slugFromName", () => {
  it.each([
    ["Garden", "garden"],
    ["Café Menu 2026!", "cafe-menu-2026"],
    ["  Release -- notes  ", "release-notes"],
    ["Über Straße", "uber-strasse"],
    ["Smørrebrød Łódź", "smorrebrod-lodz"],
    ["日本語", ""],
    ["---", ""],
    ["a".repeat(39) + " b", "a".repeat(39)],
    ["x".repeat(60), "x".repeat(40)],
  ])("%j → %j", (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
  });

  it("suggests only what the hub takes, or nothing", () => {
    for (const name of ["A b", "Ünïcödé", "a-".repeat(30), "9 lives", "-x-", "Q3 / Q4 plan"]) {
      const slug = slugFromName(name);
      expect(slug === "" || HANDLE_PATTERN.test(slug), `${name} → ${slug}`).toBe(true);
      expect(isHandle(slug)).toBe(slug !== "");
    }
  });
});

describe("houseFieldWords", () => {
  it("says the known refusals as sentences", () => {
    expect(houseFieldWords("slug", "taken")).toBe("Your Bay already has a project with this slug: choose another.");
    expect(houseFieldWords("handle", "not_found")).toMatch(/^Nobody has this handle/);
    expect(houseFieldWords("handle", "taken")).toMatch(/^You already have an agent with this handle/);
    expect(houseFieldWords("member_id", "not_found")).toMatch(/another Bay comes in as a visitor/);
  });
  it("passes the hub's own text on as a sentence", () => {
    expect(houseFieldWords("slug", "lowercase letters, digits and dashes, 1–40 characters")).toBe(
      "Lowercase letters, digits and dashes, 1–40 characters.",
    );
    expect(houseFieldWords("description", "at most 2000 characters")).toBe("At most 2000 characters.");
    expect(houseFieldWords("name", "Required.")).toBe("Required.");
  });
});

describe("the People page's words", () => {
  it("knows an admin by members:admin", () => {
    expect(isAdmin({ permissions: ["members:admin"] })).toBe(true);
    expect(isAdmin({ permissions: [] })).toBe(false);
  });
  it("marks a visitor with its home Bay and sponsor", () => {
    expect(visitorLine({ visiting: { home_bay: "nora", sponsor: { id: "hum-nora", name: "Nora" } } })).toBe(
      "from nora · brought by Nora",
    );
    expect(visitorLine({ visiting: null })).toBeNull();
  });
  it.each([
    [[], ""],
    [["Nora"], "Nora"],
    [["Nora", "Omar"], "Nora and Omar"],
    [["Nora", "Omar", "Pia"], "Nora, Omar and Pia"],
  ])("andList(%j) → %j", (names, words) => {
    expect(andList(names)).toBe(words);
  });
  it("explains the last-admin refusal, to oneself and about another", () => {
    const lastAdmin = { code: "conflict", message: "…", details: { reason: "last_admin" } };
    expect(removalRefusal(lastAdmin, true)).toMatch(/^You are the project's only admin/);
    expect(removalRefusal(lastAdmin, false)).toMatch(/^This is the project's only admin/);
    expect(removalRefusal({ code: "not_found", message: "member not found", details: {} }, false)).toBe(
      "member not found",
    );
    expect(removalRefusal(null, false)).toBeNull();
  });
});

it("pairCommand names the code and this hub", () => {
  expect(pairCommand("ABCD-EFGH-JKLM", "https://hub.example.org")).toBe(
    "maity pair ABCD-EFGH-JKLM --url https://hub.example.org",
  );
});

describe("a visitor in a chat (issue 29, DESIGN §4c)", () => {
  const sponsor = { id: "hum-vera", name: "Vera" };
  it.each([
    ["from_placement", "anyone", "from vera · brought by Vera · reads from when it came"],
    ["shared", "anyone", "from vera · brought by Vera"],
    ["shared", "sponsor", "from vera · brought by Vera · wakes for Vera only"],
    ["from_placement", "sponsor", "from vera · brought by Vera · reads from when it came · wakes for Vera only"],
  ] as const)("badge of history %s, wake %s", (history, wake, words) => {
    expect(visitorBadge({ home_bay: "vera", sponsor, history, wake })).toBe(words);
  });
  it("has no badge for anyone who is not visiting", () => {
    expect(visitorBadge(null)).toBeNull();
    expect(visitorBadge(undefined)).toBeNull();
  });

  it("knows the person's agents visit a project of another Bay, from the Bay the hub says they are of", () => {
    expect(visitingFrom("maintainer", [{ bay: "vera" }])).toBe("vera");
    expect(visitingFrom("vera", [{ bay: "vera" }])).toBeNull();
    // A Bay the operator shares: its people's projects are their agents' own.
    expect(visitingFrom("team", [{ bay: "team" }])).toBeNull();
    // No agent yet: nothing to bring, nothing to say.
    expect(visitingFrom("maintainer", [])).toBeNull();
  });
  it("says what a brought visitor reads and who wakes it", () => {
    expect(broughtTerms(false, "anyone")).toBe(
      "A visitor from your Bay. It reads only from now on; anyone in the chat may wake it.",
    );
    expect(broughtTerms(true, "sponsor")).toBe(
      "A visitor from your Bay. It reads the earlier messages too; only your messages wake it.",
    );
  });
  it.each([
    [0, "vera/scout was sent home"],
    [1, "vera/scout was sent home from 1 chat"],
    [3, "vera/scout was sent home from 3 chats"],
  ])("sentHome after %i rooms", (rooms, words) => {
    expect(sentHome("vera/scout", rooms)).toBe(words);
  });
});

import { describe, expect, it } from "vitest";
import {
  atNinetyFiveWords,
  FRESH_START_EXPLAINED,
  freshMoving,
  freshStartAsked,
  freshStartQuestion,
  freshStartRefusal,
  freshStateWords,
  NO_SESSIONS,
  runtimeName,
  sessionOf,
  sessionTimes,
  sessionWhere,
  VISITING_NOT_FRESH,
} from "../src/wording/sessions";

// Terminal sessions in the dashboard (issue 30, DESIGN §4e): the badge, Your sessions, the fresh start's words.

const maintainer = { id: "hum-maintainer", name: "Maintainer" };
const conflict = (reason: string) => ({ code: "conflict", message: "refused", details: { reason } });

describe("sessionOf", () => {
  it("names a session's person", () => {
    expect(sessionOf({ session: { person: maintainer } })).toBe("session of Maintainer");
  });
  it("says nothing for anyone else", () => {
    expect(sessionOf({})).toBeNull();
    expect(sessionOf({ session: undefined })).toBeNull();
  });
});

describe("freshStateWords", () => {
  it.each([
    ["awaiting_note", "Waiting for its handoff note"],
    ["note_saved", "Note saved — clearing"],
    ["cleared", "Cleared — starting fresh"],
    ["fresh", "Started fresh from its note"],
    ["cancelled", "Cancelled: no note in 15 minutes"],
  ] as const)("%s → %s", (state, words) => {
    expect(freshStateWords(state)).toBe(words);
  });
});

describe("freshMoving", () => {
  it.each([
    ["awaiting_note", true],
    ["note_saved", true],
    ["cleared", true],
    ["fresh", false],
    ["cancelled", false],
    [undefined, false],
  ] as const)("%s → %s", (state, moving) => {
    expect(freshMoving(state)).toBe(moving);
  });
});

describe("runtimeName", () => {
  it.each([
    ["codex", "Codex"],
    ["claude-code", "Claude Code"],
    ["other", "other"],
    [null, null],
    ["", null],
  ] as const)("%s → %s", (runtime, name) => {
    expect(runtimeName(runtime)).toBe(name);
  });
});

describe("sessionWhere", () => {
  const base = { bay: { name: "maintainer" }, visiting: false, device: { label: "e2e laptop" }, runtime: null };
  it("says the Bay and the computer", () => {
    expect(sessionWhere(base)).toBe("In maintainer · on e2e laptop");
  });
  it("adds the runtime when there is one", () => {
    expect(sessionWhere({ ...base, runtime: "codex" })).toBe("In maintainer · on e2e laptop · Codex");
  });
  it("says a visiting session visits", () => {
    expect(sessionWhere({ ...base, visiting: true, bay: { name: "garden" } })).toBe("Visiting garden · on e2e laptop");
  });
  it.each([null, "  "])("names a computer without a label (%j)", (label) => {
    expect(sessionWhere({ ...base, device: { label } })).toBe("In maintainer · on a computer without a name");
  });
});

describe("sessionTimes", () => {
  const now = new Date("2026-12-07T12:00:00Z");
  it.each([
    ["2026-12-07T11:59:40Z", "Last joined just now"],
    ["2026-12-07T11:55:00Z", "Last joined 5 min ago"],
  ])("%s → %s", (at, words) => {
    expect(sessionTimes({ last_joined_at: at }, now)).toBe(words);
  });
});

describe("the fresh start's confirmation", () => {
  it("says what happens before anything is done", () => {
    expect(FRESH_START_EXPLAINED).toBe(
      "It writes a handoff note first; nothing is cleared without a saved note; if none comes in 15 minutes " +
        "nothing happens.",
    );
    expect(freshStartQuestion("frontend")).toBe(`Start frontend fresh? ${FRESH_START_EXPLAINED}`);
    expect(freshStartAsked("frontend")).toBe("Fresh start of frontend asked");
  });
});

describe("freshStartRefusal", () => {
  it("is nothing without an error", () => {
    expect(freshStartRefusal(null, false)).toBeNull();
  });
  it("says the hub did not answer", () => {
    expect(freshStartRefusal(null, true)).toBe("The hub did not answer. Try again.");
  });
  it("says a fresh start is under way", () => {
    expect(freshStartRefusal(conflict("under_way"), true)).toBe("A fresh start is under way already.");
  });
  it("says a visiting session is not started fresh", () => {
    expect(freshStartRefusal(conflict("visiting"), true)).toBe(VISITING_NOT_FRESH);
    expect(VISITING_NOT_FRESH).toBe("A session visiting another Bay is not started fresh there.");
  });
  it("says an ended session is gone", () => {
    expect(freshStartRefusal({ code: "not_found", message: "session not found", details: {} }, true)).toMatch(
      /^This session is gone/,
    );
  });
  it("says a session in no chat has nowhere to write its note", () => {
    const error = { code: "invalid", message: "x", details: { fields: { conversation_id: "not_in_it" } } };
    expect(freshStartRefusal(error, true)).toMatch(/in no chat yet/);
  });
  it("falls back to the hub's words", () => {
    expect(freshStartRefusal({ code: "rate_limited", message: "Too many requests", details: {} }, true)).toBe(
      "Too many requests",
    );
  });
});

describe("the rest", () => {
  it("says what the 95 % switch does", () => {
    expect(atNinetyFiveWords("frontend", true)).toBe("frontend starts fresh by itself at 95 %");
    expect(atNinetyFiveWords("frontend", false)).toBe("frontend no longer starts fresh by itself");
  });
  it("says how to get a session", () => {
    expect(NO_SESSIONS.replaceAll("`", "")).toBe(
      "No terminal sessions yet. Sign a computer in with maity login, then run maity mcp in Claude Code or Codex: " +
        "each terminal joins as a named session.",
    );
  });
});

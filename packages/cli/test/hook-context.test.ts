import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/commands.ts";
import { hookHelp, parseHookInput } from "../src/hook.ts";
import {
  contextSizeOf,
  eventReports,
  readTranscript,
  type SentUsage,
  usageDue,
  usageReadable,
  usageReport,
} from "../src/hookContext.ts";

// maity hook's context reports (B-275…B-278): the transcript read, the window's size, the throttle
// and which event each hook makes. The real binary against a hub: agent-cli.int.test.ts.

/** One line of a Claude Code transcript (JSONL). */
const line = (entry: Record<string, unknown>): string => JSON.stringify(entry);
const call = (
  usage: Record<string, number>,
  extra: Record<string, unknown> = {},
  model = "claude-sonnet-4-5-20250929",
): string =>
  line({
    type: "assistant",
    isSidechain: false,
    uuid: `u-${Math.random()}`,
    message: { model, role: "assistant", content: [{ type: "text", text: "…" }], usage },
    ...extra,
  });
const user = (text: string) => line({ type: "user", isSidechain: false, message: { role: "user", content: text } });
const boundary = (preTokens: number, trigger = "auto", uuid = "b-1") =>
  line({ type: "system", subtype: "compact_boundary", uuid, compactMetadata: { trigger, preTokens } });
const jsonl = (...lines: string[]) => `${lines.join("\n")}\n`;

describe("B-276 the transcript: the latest main-chain call, never a sum", () => {
  it("counts input + cache written + cache read of the LATEST main-chain call; output is not in the window", () => {
    const text = jsonl(
      user("hi"),
      call({
        input_tokens: 10,
        cache_creation_input_tokens: 1_000,
        cache_read_input_tokens: 20_000,
        output_tokens: 50,
      }),
      user("more"),
      call({ input_tokens: 3, cache_creation_input_tokens: 500, cache_read_input_tokens: 21_000, output_tokens: 900 }),
    );
    // Not 10+1000+20000 + 3+500+21000: each call's input already holds the whole conversation.
    expect(readTranscript(text)).toEqual({
      call: { used: 21_503, model: "claude-sonnet-4-5-20250929" },
      boundary: null,
    });
  });

  it("a subagent's calls (isSidechain) and synthetic stubs are not the window's reading", () => {
    const text = jsonl(
      call({ input_tokens: 100, cache_read_input_tokens: 40_000 }),
      call({ input_tokens: 5, cache_read_input_tokens: 150_000 }, { isSidechain: true }),
      call({ input_tokens: 0, output_tokens: 0 }, {}, "<synthetic>"),
      user("tool result"),
    );
    expect(readTranscript(text).call).toEqual({ used: 40_100, model: "claude-sonnet-4-5-20250929" });
  });

  it("a cut first line (the tail starts mid-file), bad lines and a half-written last line are skipped", () => {
    const whole = call({ input_tokens: 7, cache_read_input_tokens: 70_000 });
    const cut = call({ input_tokens: 999_999 }).slice(25);
    const text = `${cut}\n${whole}\nnot json at all\n{"type":"assistant",\n${call({ input_tokens: 1 }).slice(0, 60)}`;
    expect(readTranscript(text, true).call?.used).toBe(70_007);
    // Read from the file's start, a first line is whole: a bad one is skipped all the same.
    expect(readTranscript(`${cut}\n`, false).call).toBeNull();
    expect(readTranscript("")).toEqual({ call: null, boundary: null });
  });

  it("missing usage fields count as 0; an entry without usage is no call", () => {
    const text = jsonl(call({ input_tokens: 42 }), line({ type: "assistant", message: { model: "m" } }));
    expect(readTranscript(text).call?.used).toBe(42);
  });

  it("B-277 the latest compact_boundary: its preTokens and trigger; calls before it say nothing of now", () => {
    const before = call({ input_tokens: 1, cache_read_input_tokens: 180_000 });
    expect(readTranscript(jsonl(before, boundary(181_000, "manual", "b-9"), user("summary")))).toEqual({
      call: null,
      boundary: { preTokens: 181_000, trigger: "manual", uuid: "b-9" },
    });
    const after = call({ input_tokens: 2, cache_creation_input_tokens: 12_000 });
    expect(readTranscript(jsonl(before, boundary(181_000), user("summary"), after))).toEqual({
      call: { used: 12_002, model: "claude-sonnet-4-5-20250929" },
      boundary: { preTokens: 181_000, trigger: "auto", uuid: "b-1" },
    });
    // Two compactions: the latest counts.
    const twice = jsonl(boundary(150_000, "auto", "b-1"), after, boundary(190_000, "auto", "b-2"));
    expect(readTranscript(twice).boundary).toEqual({ preTokens: 190_000, trigger: "auto", uuid: "b-2" });
  });
});

describe("B-276 the window's size", () => {
  it.each([
    [undefined, "claude-sonnet-4-5-20250929", 200_000],
    [undefined, "claude-sonnet-4-5-20250929[1m]", 1_000_000],
    [undefined, "claude-opus-4-1m", 1_000_000],
    [undefined, null, 200_000],
    ["500000", "claude-sonnet-4-5-20250929[1m]", 500_000],
  ])("MAITY_CONTEXT_SIZE %s, model %s → %i", (setting, model, size) => {
    expect(contextSizeOf(setting, model)).toEqual({ size });
  });
  it("a setting that is not whole tokens is ignored, and said", () => {
    for (const bad of ["1.5e5", "abc", "0", "-3", "20000000"]) {
      const chosen = contextSizeOf(bad, "claude-x");
      expect(chosen.size).toBe(200_000);
      expect(chosen.problem).toContain("MAITY_CONTEXT_SIZE");
    }
  });
});

describe("B-276 the usage report", () => {
  const c = { used: 150_000, model: "claude-sonnet-4-5" };
  it("runtime claude-code, source exact, used and size; autoCompactAt only when set and ≤ size", () => {
    expect(usageReport(c, {})).toEqual({
      report: { event: "usage", runtime: "claude-code", source: "exact", used: 150_000, size: 200_000 },
      problems: [],
    });
    expect(usageReport(c, { autoCompactAt: "160000" }).report?.autoCompactAt).toBe(160_000);
    const over = usageReport(c, { autoCompactAt: "300000" });
    expect(over.report).not.toHaveProperty("autoCompactAt");
    expect(over.problems).toEqual(["MAITY_AUTO_COMPACT_AT 300000 is over the window of 200000: not reported"]);
  });
  it("used over 1.5 × size is never sent: skipped, with why", () => {
    const over = usageReport({ used: 300_001, model: "m" }, {});
    expect(over.report).toBeUndefined();
    expect(over.problems).toEqual([
      "300001 tokens used is over 1.5 × the window of 200000 (set MAITY_CONTEXT_SIZE?): usage not reported",
    ]);
    expect(usageReport({ used: 300_001, model: "m" }, { size: "1000000" }).report?.used).toBe(300_001);
    // Exactly 1.5 × is allowed (the hub's own rule).
    expect(usageReport({ used: 300_000, model: "m" }, {}).report?.used).toBe(300_000);
  });
});

describe("B-278 the throttle: at most every 15 s, or when the whole percent moved", () => {
  const t0 = Date.parse("2026-03-04T09:00:00.000Z");
  const last: SentUsage = { percent: 42, at: new Date(t0).toISOString(), used: 84_000 };
  it.each([
    ["nothing sent yet", undefined, 42, 0, true],
    ["same percent, 1 s later", last, 42, 1_000, false],
    ["same percent, 14.999 s later", last, 42, 14_999, false],
    ["same percent, 15 s later", last, 42, 15_000, true],
    ["a whole point higher, at once", last, 43, 10, true],
    ["a whole point lower, at once", last, 41, 10, true],
    ["a clock that went back", last, 42, -60_000, true],
    ["a broken time in the state", { ...last, at: "yesterday" }, 42, 10, true],
  ])("%s → %s", (_, previous, percent, after, due) => {
    expect(usageDue(previous, percent, t0 + after)).toBe(due);
  });
});

describe("B-275 B-277 the events each hook reports", () => {
  const input = (o: Record<string, unknown>) => parseHookInput(JSON.stringify({ session_id: "s-1", ...o }));
  const reading = readTranscript(jsonl(call({ input_tokens: 5, cache_read_input_tokens: 190_000 })));
  const compacted = readTranscript(
    jsonl(
      call({ input_tokens: 5, cache_read_input_tokens: 190_000 }),
      boundary(190_005),
      user("summary"),
      call({ input_tokens: 8_000 }),
    ),
  );
  const justCompacted = readTranscript(jsonl(call({ input_tokens: 5 }), boundary(190_005), user("summary")));

  it("PreCompact → compact_start with its trigger and the latest usage as beforeTokens", () => {
    expect(eventReports(input({ hook_event_name: "PreCompact", trigger: "manual" }), reading, 1, undefined)).toEqual([
      { event: "compact_start", runtime: "claude-code", trigger: "manual", beforeTokens: 190_005 },
    ]);
    // No transcript: the last usage the hook saw; neither: no number at all; a strange trigger is left out.
    expect(eventReports(input({ hook_event_name: "PreCompact", trigger: "auto" }), null, 77, undefined)).toEqual([
      { event: "compact_start", runtime: "claude-code", trigger: "auto", beforeTokens: 77 },
    ]);
    expect(eventReports(input({ hook_event_name: "PreCompact", trigger: "x" }), null, undefined, undefined)).toEqual([
      { event: "compact_start", runtime: "claude-code" },
    ]);
  });

  it("SessionStart compact → compact_end: before from the boundary, after from a later call, one key each", () => {
    const compact = input({ hook_event_name: "SessionStart", source: "compact" });
    expect(eventReports(compact, compacted, 1, undefined)).toEqual([
      {
        event: "compact_end",
        runtime: "claude-code",
        trigger: "auto",
        beforeTokens: 190_005,
        afterTokens: 8_000,
        size: 200_000,
        idempotencyKey: "cc-s-1-b-1",
      },
    ]);
    // No call since the boundary yet: no afterTokens (and no usage reading this run).
    expect(eventReports(compact, justCompacted, 1, undefined)).toEqual([
      {
        event: "compact_end",
        runtime: "claude-code",
        trigger: "auto",
        beforeTokens: 190_005,
        idempotencyKey: "cc-s-1-b-1",
      },
    ]);
    expect(usageReadable(compact, justCompacted)).toBeNull();
    // No boundary in the tail: before is the last usage seen; the latest call may be from before the tidy.
    expect(eventReports(compact, reading, 123_456, undefined)).toEqual([
      { event: "compact_end", runtime: "claude-code", beforeTokens: 123_456 },
    ]);
    expect(usageReadable(compact, reading)).toBeNull();
    expect(usageReadable(input({ hook_event_name: "PostToolUse" }), reading)?.used).toBe(190_005);
  });

  it("SessionStart startup and clear → session_start; resume, Stop and PostToolUse → no event (usage only)", () => {
    for (const source of ["startup", "clear"])
      expect(eventReports(input({ hook_event_name: "SessionStart", source }), null, undefined, undefined)).toEqual([
        { event: "session_start", runtime: "claude-code" },
      ]);
    for (const o of [
      { hook_event_name: "SessionStart", source: "resume" },
      { hook_event_name: "Stop" },
      { hook_event_name: "PostToolUse", tool_name: "Bash" },
      {},
    ])
      expect(eventReports(input(o), reading, 5, undefined)).toEqual([]);
  });

  it("the hook's input keeps its session, transcript, trigger and source; a wrong type is no value", () => {
    expect(
      parseHookInput(
        JSON.stringify({ hook_event_name: "PreCompact", transcript_path: "/t.jsonl", trigger: 3, session_id: "s" }),
      ),
    ).toMatchObject({
      hook_event_name: "PreCompact",
      transcript_path: "/t.jsonl",
      trigger: undefined,
      session_id: "s",
    });
  });
});

describe("maity hook --help", () => {
  it("hook --help and help hook are the hook's help; --help elsewhere and help alone the usage", () => {
    expect(parseCommand(["hook", "--help"]).command).toEqual({ kind: "help", topic: "hook" });
    expect(parseCommand(["help", "hook"]).command).toEqual({ kind: "help", topic: "hook" });
    expect(parseCommand(["help"]).command).toEqual({ kind: "help" });
    expect(parseCommand(["send", "--help"]).command).toEqual({ kind: "help" });
  });
  it("the settings.json names all four hooks with this binary, and is JSON", () => {
    const help = hookHelp("/opt/my tools/maity.mjs");
    const json = JSON.parse(help.slice(help.indexOf("\n{") + 1, help.indexOf("\n}\n") + 2));
    const command = "node '/opt/my tools/maity.mjs' hook";
    const hook = { type: "command", command };
    expect(json).toEqual({
      hooks: {
        Stop: [{ hooks: [hook] }],
        PostToolUse: [{ matcher: "*", hooks: [hook] }],
        PreCompact: [{ hooks: [hook] }],
        SessionStart: [{ hooks: [hook] }],
      },
    });
    for (const name of ["MAITY_CONTEXT_SIZE", "MAITY_AUTO_COMPACT_AT", "MAITY_HOOK_INTERVAL"])
      expect(help).toContain(name);
  });
});

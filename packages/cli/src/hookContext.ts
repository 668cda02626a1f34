import type { AgentOperationInput } from "@maity/domain";
import { CONTEXT_SIZE_MAX } from "@maity/domain";
import type { HookInput } from "./hook.ts";

// `maity hook` reports the agent's memory by itself (004 v1.16, B-275…B-278): how full Claude
// Code's context window is, read from its own transcript, and when it compacts or starts afresh.
// Pure parts only: agent/hook.ts reads the file and the state and sends the reports.

export type HookReport = AgentOperationInput<"contextReport">;
export const RUNTIME = "claude-code" as const;

/** The transcript's tail that is read: enough for many calls, never the whole (it grows without end). */
export const TRANSCRIPT_TAIL_BYTES = 512 * 1024;
/** B-278: at most one usage report per this many ms, unless the whole percent moved. */
export const USAGE_MIN_INTERVAL_MS = 15_000;
/** Claude's window; "[1m]" / "-1m" model ids have the 1M-token beta window. */
export const DEFAULT_CONTEXT_SIZE = 200_000;
export const LONG_CONTEXT_SIZE = 1_000_000;

/** One model call on the main chain: the tokens it put in the window, and which model. */
export interface Call {
  used: number;
  model: string | null;
}
/** A compact_boundary entry: what Claude Code wrote when it compacted. */
export interface Boundary {
  preTokens?: number;
  trigger?: "auto" | "manual";
  uuid?: string;
}
/** What the tail says: the latest call after the latest boundary (null: none yet), and that boundary. */
export interface TranscriptReading {
  call: Call | null;
  boundary: Boundary | null;
}

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
const wholeTokens = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * The tokens one call put in the window: fresh input plus the cache written and read (all three are
 * the prompt). Output tokens are not counted: they are in the next call's input.
 */
export function usedOf(usage: Record<string, unknown>): number {
  return count(usage.input_tokens) + count(usage.cache_creation_input_tokens) + count(usage.cache_read_input_tokens);
}

/** A main-chain assistant entry with usage; subagents (isSidechain) and synthetic stubs have their own window. */
function callOf(entry: Record<string, unknown>): Call | null {
  if (entry.type !== "assistant" || entry.isSidechain === true) return null;
  const message = record(entry.message);
  const usage = record(message?.usage);
  if (!message || !usage) return null;
  const model = typeof message.model === "string" ? message.model : null;
  // Claude Code writes "<synthetic>" entries (an interruption, an API error) with zero usage: no reading.
  if (model === "<synthetic>") return null;
  return { used: usedOf(usage), model };
}

function boundaryOf(entry: Record<string, unknown>): Boundary | null {
  if (entry.type !== "system" || entry.subtype !== "compact_boundary") return null;
  const meta = record(entry.compactMetadata);
  const preTokens = wholeTokens(meta?.preTokens);
  const trigger = meta?.trigger === "auto" || meta?.trigger === "manual" ? meta.trigger : undefined;
  const uuid = typeof entry.uuid === "string" && entry.uuid ? entry.uuid : undefined;
  return {
    ...(preTokens !== undefined ? { preTokens } : {}),
    ...(trigger ? { trigger } : {}),
    ...(uuid ? { uuid } : {}),
  };
}

/**
 * Reads a transcript's tail (JSONL), newest line first: the LATEST main-chain call's usage — never
 * a sum, each call's input already holds the whole conversation so far (B-276) — and the latest
 * compact boundary. A call older than that boundary says nothing of the window now, so the scan
 * stops there. `partial`: the text starts mid-file, so its first line is cut and is skipped.
 * Lines that are not JSON (a line being written, a bad one) are skipped.
 */
export function readTranscript(text: string, partial = false): TranscriptReading {
  const lines = text.split("\n");
  const first = partial ? 1 : 0;
  let call: Call | null = null;
  for (let i = lines.length - 1; i >= first; i--) {
    const line = lines[i]?.trim();
    // Most lines are neither: only parse the ones that could be.
    if (!line || !(line.includes('"assistant"') || line.includes('"compact_boundary"'))) continue;
    let entry: Record<string, unknown> | null;
    try {
      entry = record(JSON.parse(line));
    } catch {
      continue;
    }
    if (!entry) continue;
    const boundary = boundaryOf(entry);
    if (boundary) return { call, boundary };
    call ??= callOf(entry);
  }
  return { call, boundary: null };
}

/** A whole number of tokens from the environment, or why not. */
function tokensSetting(value: string | undefined, name: string, max: number): { value?: number; problem?: string } {
  if (value === undefined) return {};
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max)
    return { problem: `${name} must be whole tokens from 1 to ${max}, got "${value}": ignored` };
  return { value: n };
}

/**
 * The window's size: MAITY_CONTEXT_SIZE when set, else 1,000,000 for a 1M model id ("[1m]",
 * "-1m"), else 200,000. An assumption stated in docs/cli.md: the transcript does not say the size.
 */
export function contextSizeOf(setting: string | undefined, model: string | null): { size: number; problem?: string } {
  const set = tokensSetting(setting, "MAITY_CONTEXT_SIZE", CONTEXT_SIZE_MAX);
  if (set.value !== undefined) return { size: set.value };
  const id = (model ?? "").toLowerCase();
  const size = id.includes("[1m]") || id.includes("-1m") ? LONG_CONTEXT_SIZE : DEFAULT_CONTEXT_SIZE;
  return set.problem ? { size, problem: set.problem } : { size };
}

/** The last usage report sent (kept in state.json, B-278). */
export interface SentUsage {
  percent: number;
  at: string;
  used: number;
}

/** B-278: send when nothing was sent yet, 15 s have passed, or the whole percent moved. */
export function usageDue(last: SentUsage | undefined, percent: number, now: number): boolean {
  if (!last) return true;
  const at = Date.parse(last.at);
  return !Number.isFinite(at) || now - at >= USAGE_MIN_INTERVAL_MS || now < at || percent !== last.percent;
}

/** A usage report for a call, or why none may be sent (B-276: used ≤ 1.5 × size, autoCompactAt ≤ size). */
export function usageReport(
  call: Call,
  env: { size?: string; autoCompactAt?: string },
): { report?: HookReport & { used: number; size: number }; problems: string[] } {
  const { size, problem } = contextSizeOf(env.size, call.model);
  const problems = problem ? [problem] : [];
  if (call.used > 1.5 * size)
    return {
      problems: [
        ...problems,
        `${call.used} tokens used is over 1.5 × the window of ${size} (set MAITY_CONTEXT_SIZE?): usage not reported`,
      ],
    };
  const auto = tokensSetting(env.autoCompactAt, "MAITY_AUTO_COMPACT_AT", CONTEXT_SIZE_MAX);
  if (auto.problem) problems.push(auto.problem);
  const autoCompactAt = auto.value !== undefined && auto.value <= size ? auto.value : undefined;
  if (auto.value !== undefined && autoCompactAt === undefined)
    problems.push(`MAITY_AUTO_COMPACT_AT ${auto.value} is over the window of ${size}: not reported`);
  return {
    report: {
      event: "usage",
      runtime: RUNTIME,
      // The count is Claude Code's own (its API usage), not an estimate.
      source: "exact",
      used: call.used,
      size,
      ...(autoCompactAt !== undefined ? { autoCompactAt } : {}),
    },
    problems,
  };
}

/**
 * The event reports a hook run makes, besides usage (B-275, B-277):
 * PreCompact → compact_start (trigger, beforeTokens = the latest usage known);
 * SessionStart compact → compact_end (beforeTokens from the boundary, else the last usage seen;
 * afterTokens from a call after the boundary, when there is one); startup and clear → session_start;
 * resume and every other event → nothing.
 */
export function eventReports(
  input: HookInput,
  reading: TranscriptReading | null,
  lastSeen: number | undefined,
  size: string | undefined,
): HookReport[] {
  const event = input.hook_event_name;
  if (event === "PreCompact") {
    const before = reading?.call?.used ?? lastSeen;
    const trigger = input.trigger === "auto" || input.trigger === "manual" ? input.trigger : undefined;
    return [
      {
        event: "compact_start",
        runtime: RUNTIME,
        ...(trigger ? { trigger } : {}),
        ...(before !== undefined ? { beforeTokens: before } : {}),
      },
    ];
  }
  if (event !== "SessionStart") return [];
  if (input.source === "startup" || input.source === "clear") return [{ event: "session_start", runtime: RUNTIME }];
  if (input.source !== "compact") return [];
  const boundary = reading?.boundary ?? null;
  const before = boundary?.preTokens ?? lastSeen;
  // Only a call after a boundary that was seen is a reading of the tidied window.
  const after = boundary ? reading?.call : null;
  return [
    {
      event: "compact_end",
      runtime: RUNTIME,
      ...(boundary?.trigger ? { trigger: boundary.trigger } : {}),
      ...(before !== undefined ? { beforeTokens: before } : {}),
      ...(after ? { afterTokens: after.used, size: contextSizeOf(size, after.model).size } : {}),
      // One compaction is one tidy line, even when the hook runs twice for it (B-280).
      ...(boundary?.uuid && input.session_id
        ? { idempotencyKey: `cc-${input.session_id}-${boundary.uuid}`.slice(0, 200) }
        : {}),
    },
  ];
}

/**
 * Whether this run's reading is a usage to report: always, except right after a compaction whose
 * boundary is not in the tail (the latest call there could be from before it).
 */
export const usageReadable = (input: HookInput, reading: TranscriptReading): Call | null =>
  input.hook_event_name === "SessionStart" && input.source === "compact" && !reading.boundary ? null : reading.call;

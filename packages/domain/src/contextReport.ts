import { z } from "zod";
import { ruleIssue } from "./validation.ts";

// POST /api/agent-api/context (004 v1.16, B-275…B-282): an agent tells the hub how full its memory
// is, and when it compacted or began afresh. compact_end and session_start re-arm the brief and the
// notes (B-254, B-270): the next event in each room hands them again in full.

export const CONTEXT_SIZE_MAX = 10_000_000;
export const CONTEXT_EVENTS = ["usage", "compact_start", "compact_end", "session_start", "overflow"] as const;
export type ContextEvent = (typeof CONTEXT_EVENTS)[number];
/** The events after which the agent holds nothing it was handed (B-254, B-270). */
export const REARMING_EVENTS: readonly ContextEvent[] = ["compact_end", "session_start"];

const invalid = (reason: string, path: PropertyKey[], input: unknown) =>
  ruleIssue(reason, path, input, { agentCode: "INVALID_CONTEXT_REPORT" });
const tokens = z.number({ error: "whole tokens" }).int("whole tokens").min(0, "at least 0");

export const contextReportInput = z
  .strictObject({
    runtime: z.enum(["claude-code", "codex", "acp", "other"], { error: "claude-code, codex, acp or other" }).optional(),
    event: z.enum(CONTEXT_EVENTS, { error: CONTEXT_EVENTS.join(", ") }).default("usage"),
    used: tokens.optional(),
    size: tokens.max(CONTEXT_SIZE_MAX, `at most ${CONTEXT_SIZE_MAX}`).optional(),
    autoCompactAt: tokens.optional(),
    source: z.enum(["exact", "reported"], { error: "exact or reported" }).optional(),
    trigger: z.enum(["auto", "manual"], { error: "auto or manual" }).optional(),
    beforeTokens: tokens.optional(),
    afterTokens: tokens.optional(),
    /** A room the agent is not in is ignored (B-282). */
    conversationId: z.string({ error: "a conversation id" }).max(100, "a conversation id").optional(),
  })
  .superRefine((r, ctx) => {
    // B-276: usage needs both numbers, used ≤ 1.5 × size, autoCompactAt ≤ size; overflow needs none (B-277).
    if (r.event !== "usage") return;
    if (r.used === undefined) ctx.addIssue(invalid("required", ["used"], r));
    if (r.size === undefined) ctx.addIssue(invalid("required", ["size"], r));
    if (r.used !== undefined && r.size !== undefined && r.used > 1.5 * r.size)
      ctx.addIssue(invalid("at most 1.5 × size", ["used"], r));
    if (r.autoCompactAt !== undefined && r.size !== undefined && r.autoCompactAt > r.size)
      ctx.addIssue(invalid("at most size", ["autoCompactAt"], r));
  });
export type ContextReport = z.output<typeof contextReportInput>;
export const contextReportAnswer = z.object({ status: z.literal("ok") });

// ---- rings, tidies and the 90 % notice (B-279…B-287; DESIGN §4b "Context rings") ----------------

/** A ring older than this is no ring: the agent's last report says nothing about now. */
export const RING_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** B-284, B-286: the notice goes when a reading crosses this, and is armed again only below the other. */
export const NOTICE_AT_PERCENT = 90;
export const NOTICE_REARM_BELOW_PERCENT = 80;

/** How full, in whole percent (may pass 100: `used` may reach 1.5 × `size`). */
export const percentOf = (used: number, size: number): number => (size > 0 ? Math.floor((used * 100) / size) : 0);

/**
 * The ring people see on an agent (DESIGN §4b): its last usage report, or null after 24 h or never;
 * with where its runtime compacts by itself (percent of the window, when it said) and its tidies
 * this session, so the dashboard's tooltip says how far it is from forgetting.
 */
export const contextRingSchema = z
  .object({
    percent: z.number().int(),
    source: z.enum(["exact", "reported"]),
    runtime: z.string(),
    reported_at: z.string(),
    auto_compact_percent: z.number().int().nullable(),
    tidies: z.number().int(),
  })
  .nullable();
export type ContextRing = z.output<typeof contextRingSchema>;

type RingRow = {
  percent: number | null;
  source: string | null;
  runtime: string | null;
  reportedAt: Date | null;
  size?: number | bigint | null;
  autoCompactAt?: number | bigint | null;
  compactions?: number | null;
};

export function ringOf(row: RingRow | undefined, now: number): ContextRing {
  if (!row || row.percent === null || row.reportedAt === null) return null;
  if (now - row.reportedAt.getTime() > RING_MAX_AGE_MS) return null;
  const size = row.size == null ? 0 : Number(row.size);
  const at = row.autoCompactAt == null ? null : Number(row.autoCompactAt);
  return {
    percent: row.percent,
    source: row.source === "exact" ? "exact" : "reported",
    runtime: row.runtime ?? "other",
    reported_at: row.reportedAt.toISOString(),
    auto_compact_percent: at !== null && size > 0 ? percentOf(at, size) : null,
    tidies: row.compactions ?? 0,
  };
}

/**
 * The notice's state after a reading (B-284, B-286): a reading at or above 90 % while armed makes it
 * due (carrying that percent) and disarms it; a reading below 80 % arms it again and withdraws a
 * notice not yet handed (it no longer says anything true). Only an agent that keeps its own memory
 * (runtime `other`, the default) is told: BayChat's relay clears the others' sessions itself.
 */
export function noticeAfter(
  state: { armed: boolean; due: number | null },
  percent: number,
  runtime: string | undefined,
): { armed: boolean; due: number | null } {
  if ((runtime ?? "other") !== "other") return state;
  if (percent < NOTICE_REARM_BELOW_PERCENT) return { armed: true, due: null };
  if (percent >= NOTICE_AT_PERCENT && state.armed) return { armed: false, due: percent };
  return state;
}

/** The notice an agent is handed once (B-284). */
export const contextNoticeSchema = z.object({
  kind: z.literal("context_high"),
  percent: z.number().int(),
  text: z.string(),
});
export type ContextNotice = z.output<typeof contextNoticeSchema>;

export const contextNotice = (percent: number): ContextNotice => ({
  kind: "context_high",
  percent,
  text:
    `Your memory is about ${percent}% full. Write a handoff note now with create_note — scope project in a ` +
    "project chat, else chat: what you are doing, what is decided, what is next — then clear or compact your " +
    "context your own way.",
});

/** Tokens as people read them: 940000 → "940k", 1200000 → "1.2M". */
export function tokensText(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(1))}M`;
  if (n >= 1_000) return `${Math.round(n / 1_000)}k`;
  return String(n);
}

/** The tidy line (B-280): "agent-a tidied its memory · 940k → 58k". */
export function tidyText(actorName: string, before?: number, after?: number): string {
  const amounts = before !== undefined && after !== undefined ? ` · ${tokensText(before)} → ${tokensText(after)}` : "";
  return `${actorName} tidied its memory${amounts}`;
}

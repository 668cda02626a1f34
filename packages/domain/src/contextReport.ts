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

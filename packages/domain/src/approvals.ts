import { z } from "zod";
import { sessionNameField } from "./sessions.ts";
import { text } from "./text.ts";

// Approvals (issue 30, DESIGN §4e, B-313): a terminal session asks ONE person for a decision with a
// decision card in a room and holds until they answer (request_approval, await_approval). Only that
// person decides — in the dashboard's card or over the API — once. Unlike a poll (v1.12) nobody else
// counts. The device API is camelCase; the people's route snake_case.

export const APPROVAL_OPTIONS_MAX = 5;
/** How long one await_approval holds at most (a tool call's client gives up near a minute). */
export const APPROVAL_WAIT_MAX_SECONDS = 50;

const option = text("an answer").trim().min(1, "an answer is 1–80 characters").max(80, "at most 80 characters");

export const requestApprovalInput = z
  .strictObject({
    session: sessionNameField,
    conversationId: text("a conversation id").min(1, "required").max(100),
    question: text("the question").trim().min(1, "required: the question").max(500, "at most 500 characters"),
    /** The answers the approver may approve with (2–5, different); none: approve or deny. */
    options: z.array(option).min(2, "2–5 answers").max(APPROVAL_OPTIONS_MAX, "2–5 answers").optional(),
    /** The person who decides: a member id (hum-…) or @handle of a person in the room; default the session's person. */
    approver: text("a person").trim().min(1).max(60).optional(),
  })
  .superRefine((v, ctx) => {
    const seen = new Set(v.options?.map((o) => o.toLowerCase()));
    if (v.options && seen.size !== v.options.length)
      ctx.addIssue({ code: "custom", path: ["options"], message: "two answers are the same" });
  });

export const awaitApprovalInput = z.strictObject({
  session: sessionNameField,
  approvalId: text("an approval id").min(1, "required").max(60),
  /** Seconds to hold for the decision (0 answers at once). */
  wait: z.coerce
    .number({ error: "a number of seconds" })
    .int("whole seconds")
    .min(0, `0–${APPROVAL_WAIT_MAX_SECONDS}`)
    .max(APPROVAL_WAIT_MAX_SECONDS, `0–${APPROVAL_WAIT_MAX_SECONDS}`)
    .optional(),
});

export const APPROVAL_STATUSES = ["pending", "approved", "denied"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

const who = z.object({ id: z.string(), name: z.string() });
/** What the session reads: where it stands, and once decided the choice and who decided. */
export const approvalStateSchema = z.object({
  approvalId: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  choice: z.string().nullable(),
  by: who.nullable(),
  question: z.string(),
  options: z.array(z.string()),
  approver: who,
  conversationId: z.string(),
  messageId: z.string(),
  decidedAt: z.string().nullable(),
});
export type ApprovalState = z.output<typeof approvalStateSchema>;

/** The people's view (the dashboard's card): `can_decide` for the approver while it is pending. */
export const approvalViewSchema = z.object({
  id: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  choice: z.string().nullable(),
  decided_by: who.nullable(),
  decided_at: z.string().nullable(),
  question: z.string(),
  options: z.array(z.string()),
  approver: who,
  asked_by: who,
  can_decide: z.boolean(),
});
export type ApprovalView = z.output<typeof approvalViewSchema>;

export const decideApprovalInput = z.strictObject({
  approval_id: text("an approval id").min(1, "required").max(60),
  decision: z.enum(["approved", "denied"], { error: "approved or denied" }),
  /** With options, an approval names the one chosen. */
  choice: text("an answer").trim().min(1).max(80).optional(),
});

/**
 * Whether `deciderId` may settle the approval with this decision (pure): only its approver, once,
 * an approval with options naming one of them, a denial naming none.
 */
export function checkDecision(
  approval: { approverId: string; status: string; options: readonly string[] },
  deciderId: string,
  decision: "approved" | "denied",
  choice: string | undefined,
): { ok: true; choice: string | null } | { ok: false; reason: "not_approver" | "decided" | "choice" } {
  if (approval.approverId !== deciderId) return { ok: false, reason: "not_approver" };
  if (approval.status !== "pending") return { ok: false, reason: "decided" };
  if (decision === "denied") return choice === undefined ? { ok: true, choice: null } : { ok: false, reason: "choice" };
  if (approval.options.length === 0)
    return choice === undefined ? { ok: true, choice: null } : { ok: false, reason: "choice" };
  const found = approval.options.find((o) => o === choice);
  return found === undefined ? { ok: false, reason: "choice" } : { ok: true, choice: found };
}

/** The card's plain-text fallback (v1.11: content stays readable wherever the card cannot render). */
export function approvalFallback(approverHandle: string, question: string, options: readonly string[]): string {
  const answers = options.length ? ` Options: ${options.map((o, i) => `${i + 1}. ${o}`).join("; ")}.` : "";
  return `Approval needed from @${approverHandle}: ${question}${answers}`;
}

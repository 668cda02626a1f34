import { z } from "zod";

// The decision card in the dashboard (issue 30, DESIGN §4e, B-313): a terminal session asks ONE
// person for a decision; the chat shows the question, who asks and who decides, the approver's
// buttons, and once decided who decided what. Pure, table-tested (test/decisions.test.ts).

type Who = { id: string; name: string };
type HubError = { code: string; message: string; details: { fields?: Record<string, string>; reason?: string } };

/** A card.decision message's payload, as request_approval writes it; anything else is not shown as a card. */
export const decisionCardPayload = z.object({
  approvalId: z.string().min(1),
  question: z.string(),
  options: z.array(z.string()),
  approver: z.object({ id: z.string(), name: z.string() }),
  askedBy: z.string(),
});
export type DecisionCardPayload = z.output<typeof decisionCardPayload>;

/** What the card shows of an approval (approvals.get's answer, or the payload until it comes). */
export type DecisionView = {
  status: "pending" | "approved" | "denied";
  choice: string | null;
  decided_by: Who | null;
  decided_at: string | null;
  question: string;
  options: readonly string[];
  approver: Who;
  asked_by: Who;
  can_decide: boolean;
};

/** One button of the approver: an option approves with it; Approve (no options) and Deny name none. */
export type DecisionButton = { label: string; decision: "approved" | "denied"; choice?: string };

/** The approver's buttons: one per option and Deny, or Approve and Deny when there are none. */
export function decisionButtons(options: readonly string[]): DecisionButton[] {
  const deny: DecisionButton = { label: "Deny", decision: "denied" };
  if (options.length === 0) return [{ label: "Approve", decision: "approved" }, deny];
  return [...options.map((o): DecisionButton => ({ label: o, decision: "approved", choice: o })), deny];
}

/** Under the question: "Asked by maintainer/frontend · you decide" / "· Maintainer decides". */
export function decisionWho(view: Pick<DecisionView, "asked_by" | "approver">, me: string): string {
  const decides = view.approver.id === me ? "you decide" : `${view.approver.name} decides`;
  return `Asked by ${view.asked_by.name} · ${decides}`;
}

/** Once decided: "Approved by Maintainer · Deploy tonight", "Denied by Maintainer"; null while pending. */
export function decisionOutcome(view: Pick<DecisionView, "status" | "choice" | "decided_by" | "approver">) {
  if (view.status === "pending") return null;
  const by = (view.decided_by ?? view.approver).name;
  if (view.status === "denied") return `Denied by ${by}`;
  return view.choice ? `Approved by ${by} · ${view.choice}` : `Approved by ${by}`;
}

/** Pending, to anyone but the approver. */
export const waitingWords = (approver: Who): string => `Waiting for ${approver.name}`;

/** While the decision is on its way, said to the approver. */
export const decidingWords = (button: DecisionButton): string =>
  button.decision === "denied" ? "Denying…" : button.choice ? `Approving: ${button.choice}…` : "Approving…";

/** Why the hub refused a decision, in words (403 not_approver, 409 decided, 400 choice, 404). */
export function decideRefusal(error: HubError | null, approver: Who): string {
  if (!error) return "The hub did not answer. Try again.";
  if (error.details.reason === "not_approver" || error.code === "forbidden")
    return `Only ${approver.name} can decide this.`;
  if (error.details.reason === "decided" || error.code === "conflict")
    return "This was decided already: the card now shows the decision.";
  if (error.details.fields?.choice)
    return "That answer is not one of this approval's options. Reload and choose again.";
  if (error.code === "not_found") return "This approval is not there any more.";
  return error.message;
}

/** The card's name for assistive technology: "Decision: Deploy 0.2 to production?". */
export const decisionLabel = (question: string): string => `Decision: ${question}`;

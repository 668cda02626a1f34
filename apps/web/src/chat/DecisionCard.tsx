"use client";
import { Button, cn } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleCheck, CircleX, Hourglass, ShieldQuestionMark, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { timeLabel } from "../format";
import { liveEvents } from "../live";
import { hubErrorOf, useTRPC } from "../trpc";
import {
  type DecisionButton,
  type DecisionCardPayload,
  type DecisionView,
  decideRefusal,
  decidingWords,
  decisionButtons,
  decisionLabel,
  decisionOutcome,
  decisionWho,
  waitingWords,
} from "../wording/decisions";

// The shared focus ring (packages/ui focusRing) pairs `outline-none` with `focus-visible:outline-2`;
// with Tailwind 4 the first sets --tw-outline-style to none, which the second then reads, so no ring
// shows. The card names the style itself: its buttons and its outcome show a 2px ring on keyboard focus.
const ring = cn(
  "focus-visible:outline-solid focus-visible:outline-2",
  "focus-visible:outline-offset-2 focus-visible:outline-focus",
);

/**
 * Issue 30 card.decision (DESIGN §4e, B-313): a terminal session asks ONE person for a decision. The
 * card reads the approval's state (approvals.get) — the payload stands in until it comes — and reads
 * it again when the hub says it changed (live `message_changed`, what "approval", on this message's
 * seq) or when the feed reconnects. The approver gets a button per option and Deny (or Approve and
 * Deny); everyone else reads "Waiting for …"; once decided, who decided what and when.
 */
export function DecisionCard(props: {
  payload: DecisionCardPayload;
  /** Who asked, by the chat's names, until the hub's answer names them. */
  askerName: string;
  seq: number;
  where: { owner: string; slug: string; conversation_id: string };
  me: string;
}) {
  const { payload, where, seq } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { approval_id: payload.approvalId };
  const queryKey = trpc.approvals.get.queryKey(input);
  const approval = useQuery(trpc.approvals.get.queryOptions(input));
  const [pressed, setPressed] = useState<DecisionButton | null>(null);
  const decidedHere = useRef(false);
  const outcomeRef = useRef<HTMLParagraphElement>(null);

  // A decision made elsewhere (another tab, the REST route) arrives as message_changed on this seq.
  const { owner, slug, conversation_id } = where;
  const approvalId = payload.approvalId;
  useEffect(
    () =>
      liveEvents?.listen((event) => {
        const mine =
          event.kind === "message_changed" &&
          event.what === "approval" &&
          event.seq === seq &&
          event.conversation_id === conversation_id &&
          event.project?.owner === owner &&
          event.project.slug === slug;
        if (mine || event.kind === "listening")
          void queryClient.invalidateQueries({ queryKey: trpc.approvals.get.queryKey({ approval_id: approvalId }) });
      }),
    [queryClient, trpc, approvalId, seq, owner, slug, conversation_id],
  );

  const decide = useMutation(
    trpc.approvals.decide.mutationOptions({
      onSuccess: (view) => {
        decidedHere.current = true;
        queryClient.setQueryData(queryKey, view);
      },
      // Decided meanwhile (409) or no longer there: read where it stands.
      onError: () => void queryClient.invalidateQueries({ queryKey }),
      onSettled: () => setPressed(null),
    }),
  );

  // Until the hub answers, the payload says what was asked; nobody is offered a button yet.
  const view: DecisionView = approval.data ?? {
    status: "pending",
    choice: null,
    decided_by: null,
    decided_at: null,
    question: payload.question,
    options: payload.options,
    approver: payload.approver,
    asked_by: { id: payload.askedBy, name: props.askerName },
    can_decide: false,
  };
  const outcome = decisionOutcome(view);
  // The approver's own decision: the buttons go, the focus moves to what was decided.
  useEffect(() => {
    if (outcome && decidedHere.current) {
      decidedHere.current = false;
      outcomeRef.current?.focus();
    }
  }, [outcome]);

  const busy = decide.isPending;
  const press = (button: DecisionButton) => {
    if (busy) return; // never disabled: the pressed button keeps the focus while it waits
    setPressed(button);
    decide.reset();
    decide.mutate({
      approval_id: payload.approvalId,
      decision: button.decision,
      ...(button.choice ? { choice: button.choice } : {}),
    });
  };
  const refusal = decide.error ? decideRefusal(hubErrorOf(decide.error), view.approver) : null;

  return (
    <section
      className="mt-1 flex w-full max-w-md flex-col gap-2 rounded-lg border border-line bg-surface p-3 text-sm"
      aria-label={decisionLabel(view.question)}
      data-approval={payload.approvalId}
      data-status={approval.data ? view.status : "loading"}
    >
      <p className="flex items-start gap-2 font-semibold [overflow-wrap:anywhere]">
        <ShieldQuestionMark className="mt-0.5 size-4 shrink-0 text-accent" aria-hidden />
        {view.question}
      </p>
      <p className="text-xs text-muted [overflow-wrap:anywhere]">{decisionWho(view, props.me)}</p>

      {/* What happened, announced when it changes (a decision made elsewhere arrives live). */}
      <div aria-live="polite" className="flex flex-col gap-2">
        {outcome ? (
          <p
            ref={outcomeRef}
            tabIndex={-1}
            className={cn(
              "flex items-start gap-2 rounded-md bg-surface-2 px-2.5 py-1.5 font-medium outline-none",
              ring,
              "[overflow-wrap:anywhere]",
            )}
            data-testid="decision-outcome"
          >
            {view.status === "approved" ? (
              <CircleCheck className="mt-0.5 size-4 shrink-0 text-accent" aria-hidden />
            ) : (
              <CircleX className="mt-0.5 size-4 shrink-0 text-danger-text" aria-hidden />
            )}
            <span>
              {outcome}
              {view.decided_at ? (
                <>
                  {" · "}
                  <time
                    dateTime={view.decided_at}
                    title={new Date(view.decided_at).toLocaleString()}
                    className="font-normal text-muted"
                  >
                    {timeLabel(view.decided_at)}
                  </time>
                </>
              ) : null}
            </span>
          </p>
        ) : approval.data && !view.can_decide ? (
          <p className="flex items-center gap-2 text-muted">
            <Hourglass className="size-4 shrink-0" aria-hidden />
            {waitingWords(view.approver)}
          </p>
        ) : null}
        {busy && pressed ? <p className="text-xs text-muted">{decidingWords(pressed)}</p> : null}
        {refusal ? (
          <p role="alert" className="text-sm text-danger-text">
            {refusal}
          </p>
        ) : null}
        {approval.isError && !approval.data ? (
          <p role="alert" className="text-sm text-danger-text">
            {hubErrorOf(approval.error)?.code === "not_found"
              ? "This approval is not there any more."
              : "Could not read where this approval stands."}
          </p>
        ) : null}
      </div>

      {view.status === "pending" && view.can_decide ? (
        <fieldset className="flex flex-wrap gap-2 border-0 p-0" aria-busy={busy}>
          <legend className="sr-only">Your decision</legend>
          {decisionButtons(view.options).map((button) => (
            <Button
              key={`${button.decision}:${button.choice ?? ""}`}
              size="sm"
              variant={button.decision === "denied" ? "ghost" : view.options.length ? "secondary" : "primary"}
              aria-disabled={busy}
              className={cn(
                "h-auto min-h-8 py-1.5 whitespace-normal text-left [overflow-wrap:anywhere]",
                "aria-disabled:cursor-not-allowed aria-disabled:opacity-50",
                ring,
                button.decision === "denied" && "text-danger-text",
              )}
              onClick={() => press(button)}
            >
              {button.decision === "denied" ? <X aria-hidden /> : <CircleCheck aria-hidden />}
              {button.label}
            </Button>
          ))}
        </fieldset>
      ) : null}
    </section>
  );
}

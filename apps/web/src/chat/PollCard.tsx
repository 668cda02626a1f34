"use client";
import type { Poll } from "@maity/domain";
import { type Named, nameOf } from "../wording/chatView";
import { peopleWords } from "../wording/mediaView";
import { Button, cn, Tooltip, useToast } from "@maity/ui";
import { BarChart3, Check, Lock } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { hubErrorOf, useTRPCClient } from "../trpc";
import { closePoll, votePoll } from "./mediaApi";

const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/**
 * v1.12 poll card (B-226…B-240): the question, the answers as radios or checkboxes, counts and
 * bars, who voted (names) in a tooltip, the reader's choice marked; Vote sends the complete set
 * (a change replaces it, Withdraw sends []); closed says so; the asker or a manager may close it.
 */
export function PollCard(props: {
  poll: Poll;
  where: { owner: string; slug: string };
  people: Map<string, Named>;
  me: string;
  canClose: boolean;
  onPoll: (poll: Poll) => void;
}) {
  const { poll } = props;
  const client = useTRPCClient();
  const toast = useToast();
  const [picked, setPicked] = useState<number[]>(poll.mine);
  const [busy, setBusy] = useState(false);
  const mineKey = poll.mine.join(",");
  // A vote from elsewhere (another tab, the live feed) resets the unsent choice to what the hub holds.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the reader's recorded vote only
  useEffect(() => setPicked(poll.mine), [mineKey]);
  const name = useId();
  const open = !poll.closed && poll.can_vote;
  const total = Math.max(1, poll.voter_count);
  const run = async (what: string, call: () => Promise<Poll>) => {
    setBusy(true);
    try {
      props.onPoll(await call());
    } catch (e) {
      toast.toast({
        title: `Could not ${what}`,
        description: hubErrorOf(e)?.message ?? "The hub did not answer.",
        variant: "danger",
      });
    } finally {
      setBusy(false);
    }
  };
  const vote = (indexes: number[]) =>
    run(indexes.length ? "vote" : "withdraw the vote", () => votePoll(client, props.where, poll.id, indexes));
  const toggle = (i: number, on: boolean) =>
    setPicked((p) => (poll.allow_multiple ? (on ? [...p, i].sort((a, b) => a - b) : p.filter((x) => x !== i)) : [i]));
  return (
    <form
      className="mt-1 flex max-w-md flex-col gap-2 rounded-lg border border-line bg-surface p-3 text-sm"
      aria-label={`Poll: ${poll.question}`}
      onSubmit={(e) => {
        e.preventDefault();
        void vote(picked);
      }}
    >
      <fieldset className="flex flex-col gap-2 border-0 p-0">
        <legend className="mb-1 flex items-center gap-2 font-semibold">
          <BarChart3 className="size-4 text-accent" aria-hidden />
          {poll.question}
        </legend>
        <p className="text-xs text-muted">
          {poll.allow_multiple ? "Choose any answers." : "Choose one answer."} Asked by{" "}
          {poll.asked_by === props.me ? "you" : nameOf(poll.asked_by, props.people)}.
        </p>
        {poll.options.map((o) => {
          const id = `${name}-${o.index}`;
          const share = Math.round((o.count / total) * 100);
          const mine = poll.mine.includes(o.index);
          const who = peopleWords(
            o.voters.map((v) => v.member_id),
            props.people,
            props.me,
          );
          return (
            <div key={o.index} className="flex flex-col gap-1">
              <div className="flex items-center gap-2">
                <input
                  id={id}
                  type={poll.allow_multiple ? "checkbox" : "radio"}
                  name={name}
                  checked={picked.includes(o.index)}
                  disabled={!open || busy}
                  onChange={(e) => toggle(o.index, e.target.checked)}
                  className="size-4 shrink-0 accent-[var(--accent)]"
                />
                <label htmlFor={id} className="min-w-0 flex-1 [overflow-wrap:anywhere]">
                  {o.text}
                  {mine ? (
                    <span className="ml-1.5 inline-flex items-center gap-0.5 text-xs font-medium text-accent">
                      <Check className="size-3" aria-hidden /> your vote
                    </span>
                  ) : null}
                </label>
                <Tooltip content={o.count ? `Voted: ${who}` : "No votes yet"}>
                  {/* A button only so keyboard users reach the tooltip with the voters' names. */}
                  <button
                    type="button"
                    className="shrink-0 cursor-default rounded-sm text-xs text-muted tabular-nums"
                    // The visible count first (WCAG 2.5.3: the name contains the label), then who.
                    aria-label={`${o.count} · ${share}%: ${o.count ? `voted by ${who}` : "no votes yet"}`}
                  >
                    {o.count} · {share}%
                  </button>
                </Tooltip>
              </div>
              <div className="h-1.5 overflow-hidden rounded-full bg-surface-2" aria-hidden>
                <div
                  className={cn("h-full rounded-full", mine ? "bg-accent" : "bg-line-strong")}
                  style={{ width: `${share}%` }}
                />
              </div>
            </div>
          );
        })}
      </fieldset>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-muted" aria-live="polite">
          {poll.voter_count} {poll.voter_count === 1 ? "voter" : "voters"}
          {poll.closed ? " · closed" : ""}
        </span>
        {poll.closed ? (
          <span className="inline-flex items-center gap-1 text-xs text-muted">
            <Lock className="size-3" aria-hidden /> This poll is closed: the votes are final.
          </span>
        ) : null}
        {open ? (
          <>
            <Button
              type="submit"
              size="sm"
              variant="primary"
              className="ml-auto"
              disabled={busy || picked.length === 0 || same(picked, poll.mine)}
            >
              {poll.mine.length ? "Change vote" : "Vote"}
            </Button>
            {poll.mine.length ? (
              <Button size="sm" variant="ghost" disabled={busy} onClick={() => void vote([])}>
                Withdraw vote
              </Button>
            ) : null}
          </>
        ) : null}
        {!poll.closed && props.canClose ? (
          <Button
            size="sm"
            variant="ghost"
            disabled={busy}
            onClick={() => void run("close the poll", () => closePoll(client, props.where, poll.id))}
          >
            Close poll
          </Button>
        ) : null}
      </div>
    </form>
  );
}

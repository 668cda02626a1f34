"use client";
import { ConfirmInRow } from "./ConfirmInRow";
import type { AppRouter } from "@maity/api";
import { Button, cn, Switch, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { SquareTerminal } from "lucide-react";
import { useId, useRef, useState } from "react";
import { ListSection } from "./ListSection";
import { hubErrorOf, useTRPC } from "./trpc";
import { useNow } from "./WithCode";
import {
  atNinetyFiveWords,
  FRESH_START_NEXT,
  freshMoving,
  freshStartAsked,
  freshStartQuestion,
  freshStartRefusal,
  freshStateWords,
  NO_SESSIONS,
  sessionTimes,
  sessionWhere,
  VISITING_NOT_FRESH,
} from "./wording/sessions";

type Session = inferRouterOutputs<AppRouter>["mySessions"]["list"]["items"][number];

// The shared focus ring (packages/ui focusRing) pairs `outline-none` with `focus-visible:outline-2`;
// with Tailwind 4 the first sets --tw-outline-style to none, which the second then reads, so no ring
// shows (see chat/DecisionCard.tsx). The section names the style itself, for its buttons and switches.
const ring = cn(
  "focus-visible:outline-solid focus-visible:outline-2",
  "focus-visible:outline-offset-2 focus-visible:outline-focus",
);
/** The same for the switch inside packages/ui's Switch (its className goes to the wrapper). */
const switchRing = "[&_[role=switch]:focus-visible]:outline-solid";

/**
 * Your sessions (issue 30, DESIGN §4e): the named sessions the person's coding terminals joined as
 * (`maity mcp` in Claude Code or Codex on a computer signed in with `maity login`) — each an agent
 * identity of the person. Per session: its Bay, the computer, the runtime, when it last joined and
 * where its fresh start stands; Start fresh… (confirmed in the row: a handoff note first, nothing
 * cleared without one) and the switch to start fresh by itself at 95 %. A section of Your agents,
 * beside Your devices; /agents#sessions opens it.
 */
export function YourSessions() {
  const trpc = useTRPC();
  const sessions = useQuery({
    ...trpc.mySessions.list.queryOptions(),
    // While a fresh start moves on (note saved, cleared, fresh), read the list again until it settles.
    refetchInterval: (query) =>
      query.state.data?.items.some((s) => freshMoving(s.fresh_start?.state)) ? 15_000 : false,
  });
  const heading = useRef<HTMLHeadingElement>(null);
  const now = useNow();
  const items = sessions.data?.items ?? [];
  return (
    <ListSection
      id="sessions"
      title="Your sessions"
      intro={
        "Your coding terminals, each a named session of yours in the chats it joins. A fresh start clears one " +
        "after it wrote a handoff note, and it goes on from the note."
      }
      heading={heading}
      query={sessions}
      what="sessions"
      empty={NO_SESSIONS}
      count={items.length}
    >
      {items.map((s) => (
        <SessionRow key={s.id} session={s} now={now} />
      ))}
    </ListSection>
  );
}

/** One session: where it runs, when it joined, its fresh start; Start fresh…, confirmed; the 95 % switch. */
function SessionRow(props: { session: Session; now: Date }) {
  const { session: s } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [confirming, setConfirming] = useState(false);
  const startButton = useRef<HTMLButtonElement>(null);
  const nameId = useId();
  const whyId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.mySessions.list.queryKey() });
  const start = useMutation(
    trpc.mySessions.freshStart.mutationOptions({
      onSuccess: () => {
        void refresh();
        toast({ title: freshStartAsked(s.name), description: FRESH_START_NEXT });
        setConfirming(false);
        // The confirmation goes away: the focus goes back to the button that opened it.
        requestAnimationFrame(() => startButton.current?.focus());
      },
      // Under way already (or gone): the row's state is read again, the refusal said in words.
      onError: () => void refresh(),
    }),
  );
  const update = useMutation(
    trpc.mySessions.update.mutationOptions({
      onSuccess: (out) => {
        void refresh();
        toast({ title: atNinetyFiveWords(s.name, out.fresh_start_at_95) });
      },
      onError: (e) =>
        toast({
          variant: "danger",
          title: "Could not change the switch",
          description: hubErrorOf(e)?.message ?? "The hub did not answer. Try again.",
        }),
    }),
  );
  // Keep (or Escape) gives the focus back to Start fresh…, so a keyboard user stays in the row.
  const cancel = () => {
    setConfirming(false);
    start.reset();
    startButton.current?.focus();
  };
  const refusal = freshStartRefusal(hubErrorOf(start.error), Boolean(start.error));
  // While a change is on its way the switch shows what was asked (and keeps the focus).
  const atNinetyFive = update.isPending ? update.variables.fresh_start_at_95 : s.fresh_start_at_95;
  return (
    <li className="flex flex-col gap-2 px-3 py-2.5">
      <div className="flex flex-wrap items-start gap-3">
        <SquareTerminal aria-hidden className="mt-0.5 size-5 shrink-0 text-muted" />
        <div className="flex min-w-0 flex-1 basis-48 flex-col gap-0.5">
          <span id={nameId} className="font-medium break-words">
            {s.name}
          </span>
          <span className="text-sm break-words">{sessionWhere(s)}</span>
          <span className="text-xs text-muted" title={new Date(s.last_joined_at).toLocaleString()}>
            {sessionTimes(s, props.now)}
          </span>
          {s.fresh_start ? (
            <span className="text-sm" data-testid="fresh-state">
              <span className="text-muted">Fresh start: </span>
              {freshStateWords(s.fresh_start.state)}
            </span>
          ) : null}
        </div>
        <Button
          ref={startButton}
          variant="secondary"
          size="sm"
          // On a phone it wraps under the text: in line with it, as the switch is.
          className={cn(ring, "max-sm:ml-8")}
          aria-expanded={confirming}
          aria-describedby={s.visiting ? `${nameId} ${whyId}` : nameId}
          disabled={s.visiting}
          onClick={() => (confirming ? cancel() : setConfirming(true))}
        >
          Start fresh…
        </Button>
      </div>
      <div className="flex flex-col gap-1 pl-8">
        <Switch
          className={switchRing}
          label="Start fresh by itself at 95 %"
          checked={atNinetyFive}
          disabled={s.visiting}
          aria-describedby={s.visiting ? `${nameId} ${whyId}` : nameId}
          onCheckedChange={(v) => {
            if (!update.isPending) update.mutate({ session_id: s.id, fresh_start_at_95: v === true });
          }}
        />
        {s.visiting ? (
          <p id={whyId} className="text-xs text-muted">
            {VISITING_NOT_FRESH}
          </p>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmInRow
          legend={`Confirm a fresh start of ${s.name}`}
          question={freshStartQuestion(s.name)}
          error={refusal}
          confirm={start.isPending ? "Asking…" : "Yes, start fresh"}
          variant="primary"
          buttonClassName={ring}
          pending={start.isPending}
          onConfirm={() => start.mutate({ session_id: s.id })}
          onCancel={cancel}
        />
      ) : null}
    </li>
  );
}

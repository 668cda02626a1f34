"use client";
import { type ConversationSummary, type SummaryItem, type SummaryTask, seqOfMessageId } from "@maity/domain";
import { Button, cn, focusRing, IconButton } from "@maity/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleCheck, Clock, MessageSquareQuote, RefreshCw, ShieldAlert, Sparkles, UserRound, X } from "lucide-react";
import { type ReactNode, useEffect, useId, useMemo, useRef } from "react";
import { liveEvents } from "../live";
import { hubErrorOf, useTRPC } from "../trpc";
import {
  CATCH_UP_POLL_FOR_MS,
  CATCH_UP_POLL_MS,
  generatorWords,
  momentWords,
  newerWords,
  statusWords,
  summaryComing,
  TASK_STATUS_WORDS,
} from "./catchUp";

// The "Catch up" panel beside the open chat (DESIGN §4b "Summary", B-105…B-111): the chat's rolling
// summary — a narrative and the decisions, open tasks, open questions and facts, each citing the
// messages it came from — up to a boundary; newer messages are in the chat. The summary is derived
// from message text by a machine (DERIVED_UNTRUSTED_CONTEXT, B-109): the panel says so and every
// item links to its sources, so a person checks before trusting it. A read never waits for the
// generator: the panel reads again while one is on its way and when the chat gets new messages.

const chip = "inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs";

/** A message an item cites: a button that shows it in the chat. */
function Source(props: { id: string; onShow: (seq: number) => void }) {
  const seq = seqOfMessageId(props.id);
  if (seq === null) return null;
  return (
    <button
      type="button"
      className={cn(
        chip,
        "cursor-pointer border-line bg-surface text-muted hover:bg-surface-2 hover:text-fg",
        focusRing,
      )}
      aria-label={`Show message #${seq} in the chat`}
      onClick={() => props.onShow(seq)}
    >
      <MessageSquareQuote className="size-3" aria-hidden />#{seq}
    </button>
  );
}

/** One labelled list of items; left out when empty. */
function ItemList<T extends SummaryItem>(props: {
  title: string;
  items: T[];
  onShow: (seq: number) => void;
  extra?: (item: T) => ReactNode;
}) {
  const headingId = useId();
  if (!props.items.length) return null;
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-1.5">
      <h3 id={headingId} className="text-xs font-semibold text-muted uppercase">
        {props.title} <span className="font-normal">({props.items.length})</span>
      </h3>
      <ul className="flex flex-col gap-1.5">
        {props.items.map((item, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: items of one immutable record, texts may repeat
          <li key={i} className="flex flex-col gap-1.5 rounded-md border border-line p-2.5 text-sm">
            <p className="leading-relaxed [overflow-wrap:anywhere]">{item.text}</p>
            <div className="flex flex-wrap items-center gap-1.5">
              {props.extra?.(item)}
              {item.source_message_ids.map((id) => (
                <Source key={id} id={id} onShow={props.onShow} />
              ))}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** An open task's owner and status (B-106). */
function TaskChips(props: { task: SummaryTask }) {
  const { owner, status } = props.task;
  return (
    <>
      <span className={cn(chip, "border-line bg-surface-2")}>
        <UserRound className="size-3" aria-hidden />
        {owner ? (
          <>
            <span className="sr-only">owner </span>
            {owner}
          </>
        ) : (
          "no owner"
        )}
      </span>
      <span
        className={cn(
          chip,
          status === "open" && "border-line-strong",
          status === "in_progress" && "border-accent bg-accent-soft",
          status === "blocked" && "border-danger text-danger-text",
        )}
      >
        <span className="sr-only">status </span>
        {TASK_STATUS_WORDS[status]}
      </span>
    </>
  );
}

/** Status, boundary and maker: what this summary is and how far it reaches. */
function About(props: { data: ConversationSummary; onShow: (seq: number) => void }) {
  const { data: d } = props;
  const s = d.summary;
  const words = statusWords(d);
  const Icon = d.status === "fresh" ? CircleCheck : d.status === "stale" ? RefreshCw : Clock;
  const through = s ? seqOfMessageId(s.through_message_id) : null;
  const firstNewer = s ? d.messages[0]?.seq : undefined;
  return (
    <div className="flex flex-col gap-1.5 text-sm" aria-live="polite">
      <p className="flex flex-wrap items-center gap-2">
        <span
          className={cn(
            chip,
            "font-medium",
            d.status === "fresh" && "border-accent bg-accent-soft text-fg",
            d.status === "stale" && "border-line-strong bg-warning-soft",
            d.status === "unavailable" && "border-line-strong bg-surface-2",
          )}
          data-status={d.status}
        >
          <Icon className="size-3" aria-hidden />
          {words.chip}
        </span>
        <span className="text-xs text-muted">{words.why}</span>
      </p>
      {s ? (
        <>
          <p className="text-xs text-muted">
            Covers messages up to{" "}
            <time dateTime={s.through_created_at} title={new Date(s.through_created_at).toLocaleString()}>
              {momentWords(s.through_created_at)}
            </time>
            {through !== null ? ` (#${through})` : ""}; {newerWords(d)}.{" "}
            {firstNewer !== undefined ? (
              <button
                type="button"
                className={cn("cursor-pointer font-medium text-accent underline-offset-2 hover:underline", focusRing)}
                onClick={() => props.onShow(firstNewer)}
              >
                Read them in the chat
              </button>
            ) : null}
          </p>
          <p className="text-xs text-muted">
            Made by {generatorWords(s.generator)},{" "}
            <time dateTime={s.generated_at} title={new Date(s.generated_at).toLocaleString()}>
              {momentWords(s.generated_at)}
            </time>
            .
          </p>
        </>
      ) : null}
    </div>
  );
}

export function CatchUpPanel(props: {
  owner: string;
  slug: string;
  /** The chat's id as the Maity routes name it. */
  conversationId: string;
  /** Shows a message in the chat: scrolls to it (loading history around it) and highlights it. */
  onShow: (seq: number) => void;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement | null>(null);
  const chatRef = useMemo(
    () => ({ owner: props.owner, slug: props.slug, conversation_id: props.conversationId }),
    [props.owner, props.slug, props.conversationId],
  );
  // A read kicks the generator and never waits for it (B-111): read again every few seconds while a
  // summary is on its way, for a bounded while from the opening or the latest message.
  const kicked = useRef(Date.now());
  const summary = useQuery({
    ...trpc.summary.get.queryOptions(chatRef),
    refetchInterval: (query) => {
      const d = query.state.data;
      if (!d || !summaryComing(d) || Date.now() - kicked.current > CATCH_UP_POLL_FOR_MS) return false;
      return CATCH_UP_POLL_MS;
    },
    refetchOnWindowFocus: true,
  });
  // A new message in this chat (the live feed the chat already has) may move the summary: read again.
  useEffect(() => {
    // Another chat opened under the panel: its polling bound starts afresh.
    kicked.current = Date.now();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = liveEvents?.listen((event) => {
      if (event.conversation_id !== chatRef.conversation_id) return;
      if (event.project?.owner !== chatRef.owner || event.project.slug !== chatRef.slug) return;
      if (event.kind !== "message" && event.kind !== "redaction") return;
      kicked.current = Date.now();
      // A burst of messages is one read.
      timer ??= setTimeout(() => {
        timer = null;
        void queryClient.invalidateQueries({ queryKey: trpc.summary.get.queryKey(chatRef) });
      }, 500);
    });
    return () => {
      off?.();
      if (timer) clearTimeout(timer);
    };
  }, [chatRef, queryClient, trpc]);
  // Opened, the panel takes the focus (over the chat on a phone, its heading is where reading starts).
  useEffect(() => heading.current?.focus(), []);
  const d = summary.data;
  const s = d?.summary;
  return (
    <aside
      aria-labelledby={headingId}
      className="flex min-h-0 w-full flex-col border-line bg-surface lg:w-96 lg:shrink-0 lg:border-l"
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onClose();
      }}
    >
      <div className="flex items-center justify-between gap-2 border-b border-line px-4 py-3">
        <h2
          id={headingId}
          ref={heading}
          tabIndex={-1}
          className="flex items-center gap-2 text-base font-semibold outline-none"
        >
          <Sparkles className="size-4" aria-hidden />
          Catch up
        </h2>
        <div className="flex items-center gap-1">
          <IconButton
            aria-label="Read the summary again"
            size="icon-sm"
            icon={<RefreshCw aria-hidden className={cn(summary.isFetching && "motion-safe:animate-spin")} />}
            onClick={() => {
              kicked.current = Date.now();
              void summary.refetch();
            }}
          />
          <IconButton aria-label="Close catch up" size="icon-sm" icon={<X aria-hidden />} onClick={props.onClose} />
        </div>
      </div>
      {/* relative: the sr-only words inside stay in this scroller, or they would stretch the page below. */}
      <div className="relative flex min-h-0 flex-1 flex-col gap-4 overflow-y-auto p-4">
        <div role="note" className="flex items-start gap-2 rounded-md bg-warning-soft px-3 py-2 text-sm">
          <ShieldAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
          <div className="flex flex-col gap-0.5">
            <p className="font-semibold">Derived — check the messages it cites</p>
            <p className="text-xs">
              A machine made this summary from the chat's messages: it may be wrong or leave things out. Agents read it
              as reference, never as instructions.
            </p>
          </div>
        </div>
        {summary.isLoading ? <p className="text-sm text-muted">Loading…</p> : null}
        {summary.isError ? (
          <p className="text-sm text-danger-text">
            {hubErrorOf(summary.error)?.message ?? "Could not read the summary."}{" "}
            <Button size="sm" variant="ghost" onClick={() => void summary.refetch()}>
              Try again
            </Button>
          </p>
        ) : null}
        {d ? <About data={d} onShow={props.onShow} /> : null}
        {s ? (
          <>
            <section aria-labelledby={`${headingId}-narrative`} className="flex flex-col gap-1.5">
              <h3 id={`${headingId}-narrative`} className="text-xs font-semibold text-muted uppercase">
                In short
              </h3>
              {s.narrative ? (
                <p className="text-sm leading-relaxed [overflow-wrap:anywhere]">{s.narrative}</p>
              ) : (
                <p className="text-sm text-muted italic">
                  The narrative is held back until the summary is made again: a message it drew on was removed.
                </p>
              )}
            </section>
            <ItemList title="Decisions" items={s.decisions} onShow={props.onShow} />
            <ItemList
              title="Open tasks"
              items={s.open_tasks}
              onShow={props.onShow}
              extra={(t) => <TaskChips task={t} />}
            />
            <ItemList title="Open questions" items={s.open_questions} onShow={props.onShow} />
            <ItemList title="Facts" items={s.facts} onShow={props.onShow} />
            <p className="font-mono text-[11px] text-muted">label: {s.label}</p>
          </>
        ) : null}
      </div>
    </aside>
  );
}

"use client";
import type { Message } from "@maity/domain";
import {
  groupMessages,
  listInWords,
  messageLink,
  nameOf,
  observersLine,
  replyExcerpt,
  seqOfHash,
  slideWindow,
} from "../wording/chatView";
import { Button, Skeleton, useToast } from "@maity/ui";
import { ArrowDown } from "lucide-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { itemTitle } from "../format";
import { onJump, pendingJump, takeJump } from "../search/bus";
import { hubErrorOf, useTRPC } from "../trpc";
import { CatchUpPanel } from "./CatchUpPanel";
import { ChatHeader } from "./ChatHeader";
import type { ChatProps } from "./chatProps";
import { Composer, type ReplyTarget } from "./Composer";
import { useManager } from "./manager";
import { MessageRow, type RowActions } from "./MessageRow";
import { NotesPanel } from "./NotesPanel";
import { dayLabel, named, peopleOf } from "./people";
import { useTimeline, useTyping } from "./timeline";
import { useEdgeSentinels } from "./useEdgeSentinels";
import { useKeptPlace } from "./useKeptPlace";

export type { ChatProps } from "./chatProps";

// A chat of 10,000 lines keeps at most MAX_MOUNTED of its loaded lines in the DOM, so it scrolls
// smoothly, sliding by STEP as the reader reaches either end of them; the rest stay in memory.
const MAX_MOUNTED = 300;
const STEP = 100;
const NEAR = 600; // px from an end at which the next lines are mounted or loaded

/** The first index whose seq is ≥ seq (binary search; items are in seq order). */
function lowerBound(items: readonly Message[], seq: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((items[mid]?.seq ?? 0) < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Mounted lines as seqs: from `from` to `to` (null: up to the newest, following live lines). */
type Range = { from: number; to: number | null };

export function OpenChat(props: ChatProps) {
  const { owner, slug, id, me } = props;
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const ref = useMemo(() => ({ owner, slug, conversation_id: id }), [owner, slug, id]);
  const conversation = useQuery(trpc.conversations.get.queryOptions(ref));
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const invalidateLists = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  }, [queryClient, trpc]);
  // Opened on one message (a search result, a message link: DESIGN §4d): the history around it is
  // read instead of the reader's window, and the chat shows that message.
  const [opening] = useState<number | null>(() =>
    typeof window === "undefined" ? null : (pendingJump({ owner, slug, id }) ?? seqOfHash(window.location.hash)),
  );
  const timeline = useTimeline(props, { me: me.id, access: conversation.data?.access }, invalidateLists, {
    around: opening,
  });
  const typing = useTyping(props, me.id);
  const c = conversation.data;
  // The asker or a manager of the chat (its creator, a project admin in it) closes a poll
  // (OQ-B-25); the same rule as the hub's, which decides again.
  const { manager } = useManager({
    owner,
    slug,
    me,
    createdBy: c?.kind === "group" ? c.created_by : null,
    participant: c?.access !== "observer",
  });
  // Names, never ids, for every id the chat shows (senders, observers, former participants).
  const senders = useMemo(
    () => [...new Set(timeline.items.flatMap((m) => [m.from, m.redaction?.by ?? m.from]))].sort().join(" "),
    [timeline.items],
  );
  const ids = useMemo(
    () =>
      [
        ...new Set([
          ...senders.split(" ").filter(Boolean),
          ...(c?.kind === "group" ? c.observers : []),
          ...(c?.participants.map((p) => p.member_id) ?? []),
        ]),
      ].sort(),
    [senders, c],
  );
  const names = useQuery({
    ...trpc.projects.names.queryOptions({ ids: ids.slice(0, 500) }),
    enabled: ids.length > 0,
    staleTime: 60_000,
    placeholderData: (previous) => previous,
  });
  const people = useMemo(() => peopleOf(c?.participants ?? [], names.data), [c, names.data]);
  const peopleRef = useRef(people);
  peopleRef.current = people;

  // The mounted slice of the loaded lines (null: the newest MAX_MOUNTED, following live lines).
  const [range, setRange] = useState<Range | null>(null);
  const items = timeline.items;
  const start = range ? lowerBound(items, range.from) : Math.max(0, items.length - MAX_MOUNTED);
  const end = range?.to == null ? items.length : lowerBound(items, range.to + 1);
  const mounted = useMemo(() => items.slice(start, end), [items, start, end]);
  const days = useMemo(() => groupMessages(mounted), [mounted]);
  const bySeq = useMemo(() => new Map(items.map((m) => [m.seq, m])), [items]);

  // Routing made visible (004 §4): the stored verdicts of the lines mounted (group chats only).
  const routedSeqs = useMemo(
    () =>
      c?.kind === "group"
        ? mounted
            .filter((m) => !m.redacted)
            .slice(-200)
            .map((m) => m.seq)
        : [],
    [c?.kind, mounted],
  );
  const routing = useQuery({
    ...trpc.messages.routing.queryOptions({ owner, slug, conversation_id: id, seqs: routedSeqs }),
    enabled: routedSeqs.length > 0,
    placeholderData: (previous) => previous,
    staleTime: 30_000,
  });
  const routingBySeq = useMemo(() => new Map((routing.data ?? []).map((r) => [r.seq, r.agents])), [routing.data]);

  // Scrolling. The reader's place is kept across every change above it (a page of earlier lines,
  // lines let go of, routing chips arriving): the first visible line stays where it was on screen,
  // so the reader keeps their place. Done by hand — not every browser anchors scrolling itself.
  const { scroller, list, pinnedToEnd, pendingScroll, onScroll } = useKeptPlace(
    // Following the newest line only when it is mounted and loaded: else the bottom mounts more.
    () => rangeRef.current.following && caughtUpRef.current,
  );
  const [highlight, setHighlight] = useState<number | null>(null);
  // The message a search result or a link opened: marked until the reader scrolls or clicks.
  const [jumped, setJumped] = useState<number | null>(null);
  const [atEnd, setAtEnd] = useState(true);
  const onScrolled = useCallback(() => {
    onScroll();
    const el = scroller.current;
    if (el) setAtEnd(el.scrollHeight - el.scrollTop - el.clientHeight < 48);
  }, [onScroll, scroller]);
  const letGoOfJumped = useCallback(() => setJumped((j) => (j === null ? j : null)), []);

  // Reaching either end of the mounted lines mounts more from memory, else loads from the hub.
  const rangeRef = useRef({ start, end, length: items.length, following: range?.to == null });
  rangeRef.current = { start, end, length: items.length, following: range?.to == null };
  const caughtUpRef = useRef(timeline.caughtUp);
  caughtUpRef.current = timeline.caughtUp;
  const toRange = useCallback((next: { start: number; end: number }, all: readonly Message[]): Range | null => {
    if (next.end >= all.length)
      return next.start <= Math.max(0, all.length - MAX_MOUNTED) ? null : { from: all[next.start]?.seq ?? 0, to: null };
    return { from: all[next.start]?.seq ?? 0, to: all[next.end - 1]?.seq ?? null };
  }, []);
  const { loadEarlier, readForward, current } = timeline;
  const moving = useRef(false);
  const towardsTop = useCallback(async () => {
    if (moving.current) return;
    moving.current = true;
    try {
      const r = rangeRef.current;
      if (r.start > 0) {
        setRange(toRange(slideWindow(r, r.length, "up", STEP, MAX_MOUNTED), current()));
        return;
      }
      const added = await loadEarlier();
      if (added > 0) {
        const all = current();
        const now = rangeRef.current;
        // The old first line is now at `added`: mount the new page and let go of the newest beyond MAX.
        setRange(
          toRange(slideWindow({ start: added, end: now.end + added }, all.length, "up", STEP, MAX_MOUNTED), all),
        );
      }
    } finally {
      moving.current = false;
    }
  }, [loadEarlier, current, toRange]);
  const towardsBottom = useCallback(async () => {
    if (moving.current) return;
    moving.current = true;
    try {
      const r = rangeRef.current;
      if (r.end < r.length) setRange(toRange(slideWindow(r, r.length, "down", STEP, MAX_MOUNTED), current()));
      else if (!timeline.caughtUp) await readForward();
    } finally {
      moving.current = false;
    }
  }, [readForward, current, toRange, timeline.caughtUp]);

  // Open at the reader's place, not the start: a linked line, else the "New messages" divider, else the end.
  const ready = timeline.state === "ready";
  const [positioned, setPositioned] = useState(false);
  // A message not loaded is read with the history around it (one request, however far back).
  const { openAround, openLatest } = timeline;
  const jump = useCallback(
    async (seq: number, mark: "highlight" | "jumped" = "highlight") => {
      let found: boolean | null = current().some((m) => m.seq === seq);
      if (!found) {
        try {
          found = await openAround(seq);
        } catch (e) {
          toast.toast({ title: "Could not load that message", description: hubErrorOf(e)?.message });
          return;
        }
      }
      if (found === null) return; // another jump replaced this one
      if (!found) {
        toast.toast({ title: "That message is not in this chat", description: `There is no message ${seq} here.` });
        return;
      }
      const all = current();
      const i = lowerBound(all, seq);
      setRange(toRange({ start: Math.max(0, i - STEP), end: Math.min(all.length, i + STEP) }, all));
      pinnedToEnd.current = false;
      pendingScroll.current = { seq, block: "center" };
      setHighlight(seq);
      setJumped(mark === "jumped" ? seq : null);
    },
    [openAround, current, toRange, toast, pinnedToEnd, pendingScroll],
  );
  // "Jump to latest": from a message opened in the history back to the normal live view, at the end.
  const article = useRef<HTMLElement | null>(null);
  const toLatest = useCallback(async () => {
    setJumped(null);
    setHighlight(null);
    await openLatest();
    setRange(null);
    pendingScroll.current = null;
    pinnedToEnd.current = true;
    setAtEnd(true);
    // The link's anchor would open the old message again on a reload.
    if (window.location.hash)
      window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
    article.current?.querySelector<HTMLTextAreaElement>("textarea")?.focus();
  }, [openLatest, pendingScroll, pinnedToEnd]);
  const { divider } = timeline;
  useEffect(() => {
    if (!ready || positioned) return;
    if (opening !== null) {
      takeJump({ owner, slug, id });
      void jump(opening, "jumped");
    } else if (divider !== null) {
      pinnedToEnd.current = false;
      pendingScroll.current = { seq: "divider", block: "start" };
    }
    setPositioned(true);
  }, [ready, positioned, opening, owner, slug, id, divider, jump, pinnedToEnd, pendingScroll]);
  useEffect(() => {
    const onHash = () => {
      const seq = seqOfHash(window.location.hash);
      if (seq !== null) void jump(seq, "jumped");
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [jump]);
  // A search result of this chat opened while it is open (DESIGN §4d).
  useEffect(() => onJump({ owner, slug, id }, (seq) => void jump(seq, "jumped")), [owner, slug, id, jump]);
  useEffect(() => {
    if (highlight === null) return;
    const t = setTimeout(() => setHighlight(null), 4_000);
    return () => clearTimeout(t);
  }, [highlight]);

  // "Earlier messages" as the reader nears the top, later lines near the bottom.
  const top = useRef<HTMLDivElement | null>(null);
  const bottom = useRef<HTMLDivElement | null>(null);
  useEdgeSentinels({ scroller, top, bottom, active: positioned, towardsTop, towardsBottom, rangeRef, margin: NEAR });

  // Row actions, stable across renders so the memoised rows stay put.
  const [replyTo, setReplyTo] = useState<ReplyTarget | null>(null);
  const { merge } = timeline;
  const actions = useMemo<RowActions>(
    () => ({
      onRedacted: (r) => merge([r]),
      onReply: (m) =>
        setReplyTo({ seq: m.seq, author: nameOf(m.from, peopleRef.current), excerpt: replyExcerpt(m.body) }),
      onCopyLink: (seq) => {
        const url = new URL(messageLink(owner, slug, id, seq), window.location.origin).href;
        navigator.clipboard
          .writeText(url)
          .then(() => toast.toast({ title: "Link copied", description: url }))
          .catch(() => toast.toast({ title: "Could not copy the link", description: url }));
      },
      onJump: (seq) => void jump(seq),
      onChanged: (m) => merge([m]),
    }),
    [merge, owner, slug, id, toast, jump],
  );
  const cancelReply = useCallback(() => setReplyTo(null), []);
  // The notes panel (004 v1.17): a new quiet line (an agent edited or opened a note) reads it again.
  // One side panel at a time — notes or catch up (DESIGN §4b "Summary") — so the chat keeps its width.
  const [panel, setPanel] = useState<"notes" | "catch-up" | null>(null);
  const notesOpen = panel === "notes";
  const notesPanelId = "notes-panel";
  const catchUpPanelId = "catch-up-panel";
  const catchUpButtonId = "catch-up-button";
  const closeCatchUp = useCallback(() => {
    setPanel(null);
    // Back to the button that opened it, as a dialog's close does.
    requestAnimationFrame(() => document.getElementById(catchUpButtonId)?.focus());
  }, []);
  // A cited message, shown: on a phone the panel covers the chat, so it steps aside first.
  const showCited = useCallback(
    (seq: number) => {
      if (!window.matchMedia("(min-width: 64rem)").matches) setPanel(null);
      void jump(seq);
    },
    [jump],
  );
  const lastQuiet = useMemo(() => items.reduce((seq, m) => (m.quiet && m.seq > seq ? m.seq : seq), 0), [items]);
  // Files dropped anywhere on the chat go to the composer's uploads.
  const dropTarget = useRef<((files: File[]) => void) | null>(null);
  const [dragging, setDragging] = useState(false);

  if (conversation.isLoading)
    return (
      <div aria-busy="true" className="flex flex-col gap-3 p-4">
        <span className="sr-only">Loading the conversation…</span>
        <Skeleton className="h-8 w-1/3" />
        <Skeleton className="h-16" />
        <Skeleton className="h-16" />
      </div>
    );
  if (conversation.isError || !c)
    return (
      <p className="m-6 text-danger-text">
        {hubErrorOf(conversation.error)?.message ?? "This conversation does not exist or you cannot see it."}
      </p>
    );
  const archived = projects.data?.find((p) => p.owner === owner && p.slug === slug)?.archived ?? false;
  const observer = c.access === "observer";
  const closed = c.kind === "group" && c.closed_at !== null;
  const mine = c.participants.find((p) => p.member_id === me.id);
  const canRedact = me.kind === "human" && !observer;
  const canReply = !observer && !closed;
  const kindOf = new Map(c.participants.map((p) => [p.member_id, p.kind]));
  // Until projects.names answers, an observer would show as its member id: the line waits for names.
  const observersNamed = c.kind === "group" && (names.isFetched || c.observers.every((o) => people.has(o)));
  const observersText =
    c.kind === "group" && observersNamed
      ? observersLine(
          c.observers,
          c.participants.map((p) => named(p)),
          people,
        )
      : null;
  // Who may lift a round cap — the chat's managers (its creator, a project admin).
  const managers = c.kind === "group" ? nameOf(c.created_by, people) : "";
  const candidates = c.participants.map((p) => ({
    member_id: p.member_id,
    handle: p.handle,
    name: nameOf(p.member_id, people),
    kind: p.kind,
  }));
  const atStart = timeline.earlier === null && start === 0;
  const title = itemTitle(c);
  return (
    // A definite height under the app's header (3.5rem), so the messages scroll inside the chat and the
    // composer stays pinned at the bottom — on a phone too — whatever the page around it does. The notes
    // panel sits beside the chat on a wide screen and over it on a phone.
    <div className="relative flex min-h-0 flex-1">
      <article
        ref={article}
        className="relative flex min-h-0 min-w-0 flex-1 flex-col"
        aria-label={title}
        onDragOver={(e) => {
          if (!dropTarget.current || !e.dataTransfer.types.includes("Files")) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(e) => {
          setDragging(false);
          if (!dropTarget.current || !e.dataTransfer.files.length) return;
          e.preventDefault();
          dropTarget.current([...e.dataTransfer.files]);
        }}
      >
        {dragging ? (
          <div
            className="pointer-events-none absolute inset-2 z-30 flex items-center justify-center rounded-lg border-2 border-dashed border-accent bg-accent-soft/80 text-sm font-medium"
            aria-hidden
          >
            Drop the files to attach them
          </div>
        ) : null}
        <ChatHeader
          chat={props}
          conversation={c}
          people={people}
          title={title}
          observersText={observersText}
          manage={c.kind === "group" && !observer ? { closed, archived } : null}
          notes={{ open: notesOpen, onToggle: () => setPanel(notesOpen ? null : "notes"), panelId: notesPanelId }}
          catchUp={{
            open: panel === "catch-up",
            onToggle: () => setPanel(panel === "catch-up" ? null : "catch-up"),
            panelId: catchUpPanelId,
            buttonId: catchUpButtonId,
          }}
        />
        <div
          ref={scroller}
          className="flex min-h-0 flex-1 flex-col overflow-y-auto px-4 py-3 [overflow-anchor:none]"
          onScroll={onScrolled}
          // The reader moving on lets go of the message a search opened (its mark fades).
          onPointerDown={letGoOfJumped}
          onWheel={letGoOfJumped}
          onTouchMove={letGoOfJumped}
        >
          <div ref={top} className="flex flex-col items-center gap-1 pb-2" aria-busy={timeline.loadingEarlier}>
            {atStart ? (
              <p className="text-xs text-muted">The start of the conversation.</p>
            ) : (
              // The fallback for scrolling: a keyboard or a short chat reaches earlier lines here.
              <Button variant="ghost" size="sm" onClick={() => void towardsTop()} disabled={!ready}>
                {timeline.loadingEarlier ? "Loading earlier messages…" : "Earlier messages"}
              </Button>
            )}
          </div>
          {timeline.state === "error" ? <p className="text-sm text-danger-text">{timeline.error}</p> : null}
          <ol ref={list} className="flex flex-col gap-1" aria-label="Messages">
            {timeline.state === "loading" ? (
              <li aria-busy="true" className="text-sm text-muted">
                Loading…
              </li>
            ) : null}
            {ready && items.length === 0 ? <li className="text-sm text-muted">No messages yet.</li> : null}
            {days.map((day) => [
              <li key={`day-${day.day}`} className="my-2 flex items-center gap-3 text-xs text-muted">
                <span className="h-px flex-1 bg-border" aria-hidden />
                {dayLabel(day.day)}
                <span className="h-px flex-1 bg-border" aria-hidden />
              </li>,
              ...day.runs.flatMap((run) =>
                run.messages.flatMap((m, i) => [
                  ...(m.seq === divider
                    ? [
                        <li key="divider" data-divider="new" className="scroll-mt-2">
                          {/* biome-ignore lint/a11y/useSemanticElements: a labelled separator that shows its label; an <hr> holds no text */}
                          <div
                            role="separator"
                            aria-label="New messages"
                            className="my-1 flex items-center gap-3 text-xs font-semibold text-danger-text"
                          >
                            <span className="h-px flex-1 bg-danger" aria-hidden />
                            New messages
                            <span className="h-px flex-1 bg-danger" aria-hidden />
                          </div>
                        </li>,
                      ]
                    : []),
                  <MessageRow
                    key={m.seq}
                    message={m}
                    first={i === 0 || m.seq === divider}
                    conversationRef={ref}
                    canRedact={canRedact}
                    canReply={canReply}
                    manager={manager}
                    me={me.id}
                    agent={(kindOf.get(m.from) ?? people.get(m.from)?.kind) === "agent"}
                    people={people}
                    routing={routingBySeq.get(m.seq)}
                    managers={managers}
                    highlighted={highlight === m.seq}
                    jumped={jumped === m.seq}
                    quoted={m.reply_to ? bySeq.get(m.reply_to) : undefined}
                    actions={actions}
                  />,
                ]),
              ),
            ])}
          </ol>
          <div ref={bottom} className="h-px shrink-0" aria-hidden>
            {!timeline.caughtUp ? <span className="sr-only">Loading later messages…</span> : null}
          </div>
          {timeline.around !== null && ready && (!timeline.caughtUp || !atEnd || timeline.unseenAbove) ? (
            // Opened on a message in the history: the way back to the newest lines, over the messages
            // (at the newest too while unread lines above were never shown: back to the normal opening).
            <div className="pointer-events-none sticky bottom-2 z-10 flex h-0 shrink-0 justify-center">
              <Button
                variant="secondary"
                size="sm"
                className="pointer-events-auto -translate-y-full rounded-full shadow-md"
                onClick={() => void toLatest()}
              >
                <ArrowDown aria-hidden />
                Jump to latest
              </Button>
            </div>
          ) : null}
        </div>
        <p className="typing min-h-5 shrink-0 px-4 text-xs text-muted" aria-live="polite">
          {typing.length
            ? `${listInWords(typing.map((m) => nameOf(m, people)))} ${typing.length === 1 ? "is" : "are"} writing…`
            : ""}
        </p>
        <Composer
          conversationRef={ref}
          closed={closed}
          observer={observer}
          archived={archived}
          lead={mine && "meat_proxy_lead" in mine ? Boolean(mine.meat_proxy_lead) : false}
          human={me.kind === "human"}
          me={me.id}
          candidates={candidates}
          replyTo={replyTo}
          onCancelReply={cancelReply}
          dropTarget={dropTarget}
          onPosted={(m) => {
            // The lists learn of it from the live feed: nothing to read again here.
            pinnedToEnd.current = true;
            setRange(null);
            // Reading a stretch of the history (a search result): the newest lines come back with it.
            if (timeline.around !== null && !timeline.caughtUp) {
              setJumped(null);
              void openLatest();
              return;
            }
            merge([m]);
          }}
        />
      </article>
      {notesOpen ? (
        <div id={notesPanelId} className="absolute inset-0 z-20 flex lg:static lg:inset-auto">
          <NotesPanel
            owner={owner}
            slug={slug}
            conversationId={id}
            observer={observer}
            people={people}
            refresh={lastQuiet}
            onClose={() => setPanel(null)}
          />
        </div>
      ) : null}
      {panel === "catch-up" ? (
        <div id={catchUpPanelId} className="absolute inset-0 z-20 flex lg:static lg:inset-auto">
          <CatchUpPanel owner={owner} slug={slug} conversationId={id} onShow={showCited} onClose={closeCatchUp} />
        </div>
      ) : null}
    </div>
  );
}

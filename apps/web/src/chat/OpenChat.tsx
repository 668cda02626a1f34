"use client";
import { groupMessages, nameOf, observersLine } from "@maity/domain";
import { Avatar, Button, Skeleton } from "@maity/ui";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Eye } from "lucide-react";
import { useCallback, useLayoutEffect, useRef } from "react";
import { itemTitle } from "../format";
import { hubErrorOf, useTRPC } from "../trpc";
import { Composer } from "./Composer";
import { ManageGroup } from "./ManageGroup";
import { MessageRow } from "./MessageRow";
import { dayLabel, named, peopleOf } from "./people";
import { useTimeline, useTyping } from "./timeline";

export type ChatProps = { owner: string; slug: string; id: string; me: { id: string; kind: string; handle: string } };

export function OpenChat(props: ChatProps) {
  const { owner, slug, id, me } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = { owner, slug, conversation_id: id };
  const conversation = useQuery(trpc.conversations.get.queryOptions(ref));
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const invalidateLists = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  }, [queryClient, trpc]);
  const timeline = useTimeline(props, invalidateLists);
  const typing = useTyping(props);
  // Issue 15: names for every id the chat shows (senders, observers, former participants).
  const ids = [
    ...new Set([
      ...timeline.items.flatMap((m) => [m.from, m.redaction?.by ?? m.from]),
      ...(conversation.data?.kind === "group" ? conversation.data.observers : []),
      ...(conversation.data?.participants.map((p) => p.member_id) ?? []),
    ]),
  ].sort();
  const names = useQuery({
    ...trpc.projects.names.queryOptions({ ids: ids.slice(0, 500) }),
    enabled: ids.length > 0,
    staleTime: 60_000,
  });
  // Issue 15 "routing made visible": the stored verdicts of the messages shown (group chats only).
  const routedSeqs =
    conversation.data?.kind === "group"
      ? timeline.items
          .filter((m) => !m.redacted)
          .slice(-200)
          .map((m) => m.seq)
      : [];
  const routing = useQuery({
    ...trpc.messages.routing.queryOptions({ owner, slug, conversation_id: id, seqs: routedSeqs }),
    enabled: routedSeqs.length > 0,
    placeholderData: (previous) => previous,
  });
  const routingBySeq = new Map((routing.data ?? []).map((r) => [r.seq, r.agents]));

  // Keep the newest message in view as messages arrive, unless the reader has scrolled up to read.
  const scroller = useRef<HTMLDivElement | null>(null);
  const pinnedToEnd = useRef(true);
  const newest = timeline.items.at(-1)?.seq;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !pinnedToEnd.current || newest === undefined) return;
    el.scrollTop = el.scrollHeight;
  }, [newest]);

  if (conversation.isLoading)
    return (
      <div aria-busy="true" className="flex flex-col gap-3 p-4">
        <span className="sr-only">Loading the conversation…</span>
        <Skeleton className="h-8 w-1/3" />
        <Skeleton className="h-16" />
        <Skeleton className="h-16" />
      </div>
    );
  if (conversation.isError || !conversation.data)
    return (
      <p className="m-6 text-danger-text">
        {hubErrorOf(conversation.error)?.message ?? "This conversation does not exist or you cannot see it."}
      </p>
    );
  const c = conversation.data;
  const archived = projects.data?.find((p) => p.owner === owner && p.slug === slug)?.archived ?? false;
  const observer = c.access === "observer";
  const closed = c.kind === "group" && c.closed_at !== null;
  const mine = c.participants.find((p) => p.member_id === me.id);
  const canRedact = me.kind === "human" && !observer;
  const kindOf = new Map(c.participants.map((p) => [p.member_id, p.kind]));
  const people = peopleOf(c.participants, names.data);
  const days = groupMessages(timeline.items);
  const observersText =
    c.kind === "group"
      ? observersLine(
          c.observers,
          c.participants.map((p) => named(p)),
          people,
        )
      : null;
  // Issue 15: who may lift a round cap — the chat's managers (its creator, a project admin).
  const managers = c.kind === "group" ? nameOf(c.created_by, people) : "";
  return (
    <article className="flex min-h-0 flex-1 flex-col" aria-label={itemTitle(c)}>
      <header className="flex flex-col gap-2 border-b border-line bg-surface px-4 py-3">
        <h1 className="text-lg font-semibold">{itemTitle(c)}</h1>
        <ul className="flex flex-wrap gap-x-3 gap-y-1.5" aria-label="Participants">
          {c.participants.map((p) => (
            <li key={p.member_id} className="flex items-center gap-1.5 text-sm">
              <Avatar
                name={nameOf(p.member_id, people)}
                kind={p.kind === "agent" ? "agent" : "human"}
                size="sm"
                decorative
              />
              {nameOf(p.member_id, people)} <span className="text-muted">({p.kind})</span>
            </li>
          ))}
        </ul>
        {observersText ? (
          <p className="flex items-start gap-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="note">
            <Eye className="mt-0.5 size-4 shrink-0" aria-hidden />
            <span>{observersText}: the owner of an agent in a chat reads along, and does not write.</span>
          </p>
        ) : null}
        {c.kind === "group" && !observer ? (
          <ManageGroup {...props} view={c} closed={closed} archived={archived} />
        ) : null}
      </header>
      <div
        ref={scroller}
        className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto px-4 py-3"
        onScroll={(e) => {
          const el = e.currentTarget;
          pinnedToEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        }}
      >
        {timeline.earlier !== null ? (
          <Button variant="ghost" size="sm" className="self-center" onClick={() => void timeline.loadEarlier()}>
            Earlier messages
          </Button>
        ) : (
          <p className="self-center text-xs text-muted">The start of the conversation.</p>
        )}
        {timeline.state === "error" ? <p className="text-sm text-danger-text">{timeline.error}</p> : null}
        <ol className="flex flex-col gap-1" aria-label="Messages">
          {timeline.state === "loading" ? (
            <li aria-busy="true" className="text-sm text-muted">
              Loading…
            </li>
          ) : null}
          {timeline.state === "ready" && timeline.items.length === 0 ? (
            <li className="text-sm text-muted">No messages yet.</li>
          ) : null}
          {days.map((day) => [
            <li key={`day-${day.day}`} className="my-2 flex items-center gap-3 text-xs text-muted">
              <span className="h-px flex-1 bg-border" aria-hidden />
              {dayLabel(day.day)}
              <span className="h-px flex-1 bg-border" aria-hidden />
            </li>,
            ...day.runs.flatMap((run) =>
              run.messages.map((m, i) => (
                <MessageRow
                  key={m.seq}
                  message={m}
                  first={i === 0}
                  conversationRef={ref}
                  canRedact={canRedact}
                  onRedacted={(r) => timeline.merge([r])}
                  me={me.id}
                  agent={(kindOf.get(m.from) ?? people.get(m.from)?.kind) === "agent"}
                  people={people}
                  routing={routingBySeq.get(m.seq)}
                  managers={managers}
                />
              )),
            ),
          ])}
        </ol>
      </div>
      <p className="typing min-h-5 px-4 text-xs text-muted" aria-live="polite">
        {typing.length
          ? `${typing.map((m) => nameOf(m, people)).join(", ")} ${typing.length === 1 ? "is" : "are"} writing…`
          : ""}
      </p>
      <Composer
        conversationRef={ref}
        closed={closed}
        observer={observer}
        archived={archived}
        lead={mine && "meat_proxy_lead" in mine ? Boolean(mine.meat_proxy_lead) : false}
        human={me.kind === "human"}
        onPosted={(m) => {
          // The lists learn of it from the live feed (issue 12): nothing to read again here.
          pinnedToEnd.current = true;
          timeline.merge([m]);
        }}
      />
    </article>
  );
}

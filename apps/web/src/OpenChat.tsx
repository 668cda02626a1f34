"use client";
import {
  groupMessages,
  type LiveEvent,
  type Message,
  type MessageRouting,
  type Named,
  nameOf,
  observersLine,
  routingChips,
} from "@maity/domain";
import { Avatar, Badge, Button, cn, focusRing, Input, Select, Skeleton, Switch, Textarea, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Eye, Paperclip, SendHorizontal, Trash2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { liveEvents } from "./Dashboard";
import { itemTitle, timeLabel, withMentions } from "./format";
import { hubErrorOf, useTRPC, useTRPCClient } from "./trpc";

type Props = { owner: string; slug: string; id: string; me: { id: string; kind: string; handle: string } };
const NEWEST = 2_147_483_647; // `before` above every seq: the newest page of the history

/**
 * The reader's window and history. Opening reads the window (the hub moves the read marker);
 * "Earlier messages" pages back with `before`; live events append or replace by seq, so a resumed
 * feed never doubles a message.
 */
function useTimeline({ owner, slug, id }: Props, onRead: () => void) {
  const client = useTRPCClient();
  const [items, setItems] = useState<Message[]>([]);
  const [earlier, setEarlier] = useState<number | null | undefined>(undefined);
  const [state, setState] = useState<"loading" | "ready" | "error">("loading");
  const [error, setError] = useState<string | null>(null);
  const last = useRef(0);
  const merge = useCallback((incoming: Message[]) => {
    setItems((current) => {
      const bySeq = new Map(current.map((m) => [m.seq, m]));
      for (const m of incoming) bySeq.set(m.seq, m);
      const merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
      last.current = merged.at(-1)?.seq ?? last.current;
      return merged;
    });
  }, []);
  const readForward = useCallback(async () => {
    // Up to a few pages of the window at a time; each read moves the marker on the hub.
    for (let page = 0; page < 5; page++) {
      const res = await client.messages.list.query({
        owner,
        slug,
        conversation_id: id,
        after: last.current,
        limit: 200,
      });
      merge(res.items);
      if (res.items.length) last.current = res.items.at(-1)?.seq ?? last.current;
      if (!res.next_cursor) break;
    }
    onRead();
  }, [client, owner, slug, id, merge, onRead]);
  useEffect(() => {
    let cancelled = false;
    readForward()
      .then(() => !cancelled && setState("ready"))
      .catch((e: unknown) => {
        if (cancelled) return;
        setError(hubErrorOf(e)?.message ?? "Could not load this conversation.");
        setState("error");
      });
    return () => {
      cancelled = true;
    };
  }, [readForward]);
  const loadEarlier = useCallback(async () => {
    const before = items[0]?.seq ?? NEWEST;
    const res = await client.messages.list.query({ owner, slug, conversation_id: id, before, limit: 50 });
    merge(res.items);
    setEarlier(res.earlier ?? null);
  }, [client, owner, slug, id, items, merge]);
  const refreshOne = useCallback(
    async (seq: number) => {
      const res = await client.messages.list.query({ owner, slug, conversation_id: id, before: seq + 1, limit: 1 });
      merge(res.items.filter((m) => m.seq === seq));
    },
    [client, owner, slug, id, merge],
  );
  // Issue 12: a live message arrives rendered; it is shown at once, and the marker moves with one
  // debounced markRead however many arrive together — no read of the window per message.
  const pendingRead = useRef<{ seq: number; timer: ReturnType<typeof setTimeout> | null }>({ seq: 0, timer: null });
  const markRead = useCallback(
    (seq: number) => {
      const pending = pendingRead.current;
      pending.seq = Math.max(pending.seq, seq);
      if (pending.timer) return;
      pending.timer = setTimeout(() => {
        pending.timer = null;
        void client.messages.markRead.mutate({ owner, slug, conversation_id: id, seq: pending.seq }).catch(() => {});
      }, 400);
    },
    [client, owner, slug, id],
  );
  useEffect(() => {
    const onLive = (e: Event) => {
      const event = (e as CustomEvent<LiveEvent>).detail;
      if (event.conversation_id !== id || event.project?.owner !== owner || event.project.slug !== slug) return;
      if (event.kind === "redaction") void refreshOne(event.seq);
      else if (event.kind === "message" && event.message) {
        merge([event.message]);
        markRead(event.message.seq);
      } else if (event.kind === "message") void readForward();
    };
    liveEvents?.addEventListener("live", onLive);
    return () => liveEvents?.removeEventListener("live", onLive);
  }, [id, owner, slug, readForward, refreshOne, merge, markRead]);
  return { items, earlier, state, error, loadEarlier, merge, refreshOne };
}

/** Who is writing in this chat right now (an agent's POST …/typing), for a few seconds each. */
function useTyping({ owner, slug, id }: Props): string[] {
  const [writing, setWriting] = useState<Record<string, number>>({});
  useEffect(() => {
    const onLive = (e: Event) => {
      const event = (e as CustomEvent<LiveEvent>).detail;
      if (
        event.kind !== "typing" ||
        !event.member_id ||
        event.conversation_id !== id ||
        event.project?.owner !== owner ||
        event.project.slug !== slug
      )
        return;
      const who = event.member_id;
      setWriting((w) => ({ ...w, [who]: Date.now() }));
      setTimeout(
        () =>
          setWriting((w) =>
            w[who] !== undefined && Date.now() - w[who] >= 5_900
              ? Object.fromEntries(Object.entries(w).filter(([k]) => k !== who))
              : w,
          ),
        6_000,
      );
    };
    liveEvents?.addEventListener("live", onLive);
    return () => liveEvents?.removeEventListener("live", onLive);
  }, [id, owner, slug]);
  return Object.keys(writing);
}

export function OpenChat(props: Props) {
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

type Participant = {
  member_id: string;
  kind: "human" | "agent";
  handle: string;
  name?: string | undefined;
  owner_id?: string | null;
};
/** A participant as domain's Named: a human's name is its handle when the view has no name (§9.2 shapes). */
const named = (p: Participant): Named => ({
  member_id: p.member_id,
  kind: p.kind,
  name: p.name ?? p.handle,
  owner_id: p.owner_id ?? null,
});
/** Everyone the chat names: the participants, then projects.names (former participants, observers). */
function peopleOf(participants: Participant[], names: Named[] | undefined): Map<string, Named> {
  const people = new Map<string, Named>((names ?? []).map((n) => [n.member_id, n]));
  for (const p of participants) if (!people.has(p.member_id)) people.set(p.member_id, named(p));
  return people;
}
function dayLabel(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  const date = new Date(y ?? 1970, (m ?? 1) - 1, d ?? 1);
  const today = new Date();
  if (date.toDateString() === today.toDateString()) return "Today";
  if (date.toDateString() === new Date(today.getTime() - 86_400_000).toDateString()) return "Yesterday";
  return date.toLocaleDateString(undefined, {
    weekday: "long",
    day: "numeric",
    month: "long",
    year: date.getFullYear() === today.getFullYear() ? undefined : "numeric",
  });
}

/** Issue 15: under a message, the agents the hub asked to answer and why; a held-back round says so. */
function RoutingLine(props: { agents: MessageRouting["agents"]; people: Map<string, Named>; managers: string }) {
  const chips = routingChips(props.agents, props.people);
  if (!chips.asked.length && !chips.heldByCap.length) return null;
  return (
    <fieldset className="mt-1 flex flex-wrap items-center gap-1.5 border-0 p-0 text-xs" aria-label="Routing">
      {chips.asked.map((a) => (
        <span
          key={a.agentId}
          className="inline-flex items-center gap-1 rounded-full border border-line bg-surface px-2 py-0.5"
          title={`Asked to answer: ${a.why}`}
        >
          <span aria-hidden>→</span> {a.name} <span className="text-muted">({a.why})</span>
        </span>
      ))}
      {chips.heldByCap.length ? (
        <span className="text-muted" role="note">
          Round cap reached: {chips.heldByCap.join(", ")} will not answer until a person writes; {props.managers} or a
          project admin can raise it in Manage.
        </span>
      ) : null}
    </fieldset>
  );
}

function MessageRow(props: {
  message: Message;
  first: boolean;
  people: Map<string, Named>;
  routing: MessageRouting["agents"] | undefined;
  managers: string;
  conversationRef: { owner: string; slug: string; conversation_id: string };
  canRedact: boolean;
  onRedacted: (m: Message) => void;
  me: string;
  agent: boolean;
}) {
  const { message: m } = props;
  const trpc = useTRPC();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const redact = useMutation(
    trpc.messages.redact.mutationOptions({ onSuccess: (r) => (setAsking(false), props.onRedacted(r)) }),
  );
  if (m.redacted) {
    return (
      <li data-seq={m.seq} className="rounded-md border border-dashed border-line px-3 py-2 text-sm text-muted">
        <em>
          Message removed by {m.redaction?.by ? nameOf(m.redaction.by, props.people) : "someone"} ·{" "}
          {timeLabel(m.redaction?.at ?? null)}
          {m.redaction?.reason ? ` — ${m.redaction.reason}` : ""}
        </em>
      </li>
    );
  }
  const mentionsMe = m.mentions.some((x) => x.member_id === props.me);
  const author = nameOf(m.from, props.people);
  const sent = new Date(m.sent_at);
  const clock = sent.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <li
      data-seq={m.seq}
      className={cn(
        "group flex gap-3 rounded-md px-2 hover:bg-surface-2",
        props.first ? "mt-1 py-1.5" : "py-0.5",
        mentionsMe && "border-l-4 border-danger bg-accent-soft/40",
      )}
    >
      {props.first ? (
        <Avatar name={author} kind={props.agent ? "agent" : "human"} decorative className="mt-0.5" />
      ) : (
        // A run's later messages: the time shows on hover, the full date in its title.
        <time
          dateTime={m.sent_at}
          title={sent.toLocaleString()}
          className="w-9 shrink-0 pt-0.5 text-right text-[11px] text-muted opacity-0 group-hover:opacity-100"
        >
          {clock}
        </time>
      )}
      <div className="flex min-w-0 flex-1 flex-col gap-0.5">
        {props.first ? (
          <div className="flex items-baseline gap-2 text-sm">
            <span className="font-semibold">{author}</span>
            {props.agent ? <Badge variant="neutral">agent</Badge> : null}
            <time dateTime={m.sent_at} title={sent.toLocaleString()} className="text-xs text-muted">
              {clock}
            </time>
          </div>
        ) : (
          <span className="sr-only">{author}</span>
        )}
        <div className="whitespace-pre-wrap text-sm leading-relaxed [overflow-wrap:anywhere]">
          {withMentions(m.body ?? "", m.mentions).map((part, i) =>
            part.mention ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
              <mark key={i} className="rounded-sm bg-accent-soft px-0.5 font-medium text-fg">
                {part.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
              <span key={i}>{part.text}</span>
            ),
          )}
        </div>
        {props.routing ? <RoutingLine agents={props.routing} people={props.people} managers={props.managers} /> : null}
        {props.canRedact && asking ? (
          <form
            className="mt-2 flex flex-wrap items-end gap-2"
            aria-label="Remove message"
            onSubmit={(e) => {
              e.preventDefault();
              redact.mutate({ ...props.conversationRef, seq: m.seq, reason: reason.trim() || null });
            }}
          >
            <Input
              label="Reason (optional)"
              hideLabel
              placeholder="Reason (optional)"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              maxLength={500}
              className="min-w-48 flex-1"
            />
            <Button type="submit" variant="danger" size="sm" disabled={redact.isPending}>
              Remove for everyone
            </Button>
            <Button size="sm" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            {redact.error ? (
              <span role="alert" className="w-full text-sm text-danger-text">
                {hubErrorOf(redact.error)?.message ?? "Could not remove it."}
              </span>
            ) : null}
          </form>
        ) : null}
      </div>
      {props.canRedact && !asking ? (
        <Button
          variant="ghost"
          size="sm"
          className="self-start text-muted opacity-0 focus-visible:opacity-100 group-hover:opacity-100"
          aria-label={`Remove message ${m.seq}`}
          onClick={() => setAsking(true)}
        >
          <Trash2 aria-hidden />
          Remove
        </Button>
      ) : null}
    </li>
  );
}

function Composer(props: {
  conversationRef: { owner: string; slug: string; conversation_id: string };
  closed: boolean;
  observer: boolean;
  archived: boolean;
  lead: boolean;
  human: boolean;
  onPosted: (m: Message) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [body, setBody] = useState("");
  const post = useMutation(
    trpc.messages.post.mutationOptions({
      onSuccess: (m) => {
        setBody("");
        props.onPosted(m.message);
      },
    }),
  );
  // The switch shows the choice at once; the hub's answer (the view's meat_proxy_lead) follows.
  const [lead, setLead] = useState(props.lead);
  useEffect(() => setLead(props.lead), [props.lead]);
  const meat = useMutation(
    trpc.conversations.setMeatProxy.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() }),
      onError: () => setLead(props.lead),
    }),
  );
  const toast = useToast();
  const note = "flex items-start gap-2 border-t border-line bg-surface px-4 py-3 text-sm";
  if (props.closed)
    return (
      <p className={note} role="status">
        This chat is closed: its last human left. You can read it; former human participants can still remove messages.
        Start a new group chat to talk again.
      </p>
    );
  if (props.observer)
    return (
      <p className={note} role="status">
        You read along as the owner of an agent in this chat: you cannot post, manage it or remove messages.
      </p>
    );
  const switchOn = lead;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (body.trim()) post.mutate({ ...props.conversationRef, body });
  };
  const error = hubErrorOf(post.error);
  return (
    <div className="border-t border-line bg-surface px-4 py-3">
      {props.archived ? (
        <p className="mb-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="status">
          This project is archived: you can still post, leave and remove messages; nobody new can be added.
        </p>
      ) : null}
      <form className="flex flex-col gap-2" onSubmit={submit} aria-label="Composer">
        <Textarea
          label="Message"
          hideLabel
          placeholder="Write a message… (Enter sends, Shift+Enter for a new line)"
          value={body}
          rows={2}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
          error={
            error ? (error.details.fields?.body ? `Message: ${error.details.fields.body}` : error.message) : undefined
          }
        />
        <div className="flex flex-wrap items-center gap-2">
          <Button
            variant="ghost"
            size="sm"
            // Honest until attachments exist: it says so rather than opening a picker that leads nowhere.
            onClick={() =>
              toast.toast({
                title: "Attachments are not available yet",
                description: "They come with a later version of the hub.",
              })
            }
          >
            <Paperclip aria-hidden />
            Attach
          </Button>
          {props.human ? (
            <Switch
              label="Meat proxy"
              aria-label="Meat proxy (lead)"
              checked={switchOn}
              onCheckedChange={(checked) => {
                setLead(checked);
                meat.mutate({ ...props.conversationRef, meat_proxy: checked });
              }}
            />
          ) : null}
          <Button
            type="submit"
            variant="primary"
            size="sm"
            className="ml-auto"
            disabled={post.isPending || !body.trim()}
          >
            <SendHorizontal aria-hidden />
            Send
          </Button>
        </div>
      </form>
    </div>
  );
}

function ManageGroup(
  props: Props & {
    view: {
      id: string;
      title: string | null;
      created_by: string;
      participants: { member_id: string; handle: string; kind: string }[];
    };
    closed: boolean;
    archived: boolean;
  },
) {
  const { owner, slug, id, me, view } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const ref = { owner, slug, conversation_id: id };
  const members = useQuery(trpc.projects.members.queryOptions({ owner, slug }));
  const admin = members.data?.find((m) => m.member_id === me.id)?.permissions.includes("members:admin") ?? false;
  const manager = me.kind === "human" && (view.created_by === me.id || admin);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  };
  const [title, setTitle] = useState(view.title ?? "");
  const [adding, setAdding] = useState("");
  const rename = useMutation(trpc.conversations.update.mutationOptions({ onSuccess: refresh }));
  const add = useMutation(trpc.participants.add.mutationOptions({ onSuccess: () => (setAdding(""), refresh()) }));
  const remove = useMutation(trpc.participants.remove.mutationOptions({ onSuccess: refresh }));
  const leave = useMutation(
    trpc.participants.remove.mutationOptions({
      onSuccess: () => {
        refresh();
        router.push("/");
      },
    }),
  );
  const inChat = new Set(view.participants.map((p) => p.member_id));
  const candidates = (members.data ?? []).filter((m) => !inChat.has(m.member_id));
  const errorOf = (e: unknown) => {
    const hub = hubErrorOf(e);
    return hub
      ? hub.details.fields
        ? Object.entries(hub.details.fields)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ")
        : hub.message
      : null;
  };
  return (
    <details className="group rounded-md border border-line">
      <summary
        className={cn("cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-muted hover:text-fg", focusRing)}
      >
        Manage this chat
      </summary>
      <div className="flex flex-col gap-4 border-t border-line p-3">
        {manager && !props.closed ? (
          <>
            <form
              aria-label="Rename"
              className="flex flex-wrap items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                rename.mutate({ ...ref, title: title.trim() || null });
              }}
            >
              <Input
                label="Title"
                value={title}
                onChange={(e) => setTitle(e.target.value)}
                maxLength={200}
                className="min-w-48 flex-1"
                error={rename.error ? errorOf(rename.error) : undefined}
              />
              <Button type="submit" size="md">
                Rename
              </Button>
            </form>
            {props.archived ? (
              <p className="text-sm text-muted">The project is archived: nobody can be added.</p>
            ) : (
              <form
                aria-label="Add participant"
                className="flex flex-wrap items-end gap-2"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (adding) add.mutate({ ...ref, member_id: adding });
                }}
              >
                <Select
                  label="Member to add"
                  hint="Everyone in a group chat writes to whoever is or will later be in it: someone you add can read the history."
                  value={adding}
                  onChange={(e) => setAdding(e.target.value)}
                  className="min-w-48 flex-1"
                  error={add.error ? errorOf(add.error) : undefined}
                >
                  <option value="">Choose a member</option>
                  {candidates.map((m) => (
                    <option key={m.member_id} value={m.member_id}>
                      {m.name} ({m.kind})
                    </option>
                  ))}
                </Select>
                <Button type="submit" disabled={!adding}>
                  Add
                </Button>
              </form>
            )}
            <ul aria-label="Remove participants" className="flex flex-col gap-1">
              {view.participants
                .filter((p) => p.member_id !== me.id)
                .map((p) => (
                  <li key={p.member_id} className="flex items-center justify-between gap-2 text-sm">
                    {p.handle}
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => remove.mutate({ ...ref, member_id: p.member_id })}
                      aria-label={`Remove ${p.handle}`}
                    >
                      Remove
                    </Button>
                  </li>
                ))}
            </ul>
            {remove.error ? (
              <p role="alert" className="text-sm text-danger-text">
                {errorOf(remove.error)}
              </p>
            ) : null}
          </>
        ) : (
          <p className="text-sm text-muted">
            {props.closed
              ? "The chat is closed."
              : "Only the chat's creator and project admins rename it and change who is in it."}
          </p>
        )}
        <div>
          <Button variant="danger" size="sm" onClick={() => leave.mutate({ ...ref, member_id: me.id })}>
            Leave this chat
          </Button>
          {leave.error ? (
            <p role="alert" className="mt-2 text-sm text-danger-text">
              {errorOf(leave.error)}
            </p>
          ) : null}
        </div>
      </div>
    </details>
  );
}

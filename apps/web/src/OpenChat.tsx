"use client";
import type { LiveEvent, Message } from "@maity/domain";
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
      const res = await client.messages.list.query({ owner, slug, conversation_id: id, after: last.current, limit: 200 });
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
      if (event.kind !== "typing" || !event.member_id || event.conversation_id !== id || event.project?.owner !== owner || event.project.slug !== slug) return;
      const who = event.member_id;
      setWriting((w) => ({ ...w, [who]: Date.now() }));
      setTimeout(() => setWriting((w) => (w[who] !== undefined && Date.now() - w[who] >= 5_900 ? Object.fromEntries(Object.entries(w).filter(([k]) => k !== who)) : w)), 6_000);
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
    return <p className="m-6 text-danger-text">{hubErrorOf(conversation.error)?.message ?? "This conversation does not exist or you cannot see it."}</p>;
  const c = conversation.data;
  const archived = projects.data?.find((p) => p.owner === owner && p.slug === slug)?.archived ?? false;
  const observer = c.access === "observer";
  const closed = c.kind === "group" && c.closed_at !== null;
  const mine = c.participants.find((p) => p.member_id === me.id);
  const canRedact = me.kind === "human" && !observer;
  const kindOf = new Map(c.participants.map((p) => [p.member_id, p.kind]));
  return (
    <article className="flex min-h-0 flex-1 flex-col" aria-label={itemTitle(c)}>
      <header className="flex flex-col gap-2 border-b border-line bg-surface px-4 py-3">
        <h1 className="text-lg font-semibold">{itemTitle(c)}</h1>
        <ul className="flex flex-wrap gap-x-3 gap-y-1.5" aria-label="Participants">
          {c.participants.map((p) => (
            <li key={p.member_id} className="flex items-center gap-1.5 text-sm">
              <Avatar name={p.kind === "agent" ? (p.name ?? p.handle) : p.handle} kind={p.kind === "agent" ? "agent" : "human"} size="sm" decorative />
              {p.kind === "agent" ? (p.name ?? p.handle) : p.handle} <span className="text-muted">({p.kind})</span>
            </li>
          ))}
        </ul>
        {c.kind === "group" && c.observers.length > 0 ? (
          <p className="flex items-start gap-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="note">
            <Eye className="mt-0.5 size-4 shrink-0" aria-hidden />
            <span>Read along by {c.observers.join(", ")} — the owners of agents in this chat read everything they can read.</span>
          </p>
        ) : null}
        {c.kind === "group" && !observer ? <ManageGroup {...props} view={c} closed={closed} archived={archived} /> : null}
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
          {timeline.state === "ready" && timeline.items.length === 0 ? <li className="text-sm text-muted">No messages yet.</li> : null}
          {timeline.items.map((m) => (
            <MessageRow
              key={m.seq}
              message={m}
              conversationRef={ref}
              canRedact={canRedact}
              onRedacted={(r) => timeline.merge([r])}
              me={me.id}
              agent={kindOf.get(m.from) === "agent"}
            />
          ))}
        </ol>
      </div>
      <p className="typing min-h-5 px-4 text-xs text-muted" aria-live="polite">
        {typing.length ? `${typing.map((m) => c.participants.find((p) => p.member_id === m)?.handle ?? m).join(", ")} ${typing.length === 1 ? "is" : "are"} writing…` : ""}
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

function MessageRow(props: {
  message: Message;
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
  const redact = useMutation(trpc.messages.redact.mutationOptions({ onSuccess: (r) => (setAsking(false), props.onRedacted(r)) }));
  if (m.redacted) {
    return (
      <li className="rounded-md border border-dashed border-line px-3 py-2 text-sm text-muted">
        <em>
          Message removed by {m.redaction?.by ?? "someone"} · {timeLabel(m.redaction?.at ?? null)}
          {m.redaction?.reason ? ` — ${m.redaction.reason}` : ""}
        </em>
      </li>
    );
  }
  const mentionsMe = m.mentions.some((x) => x.member_id === props.me);
  return (
    <li className={cn("group flex gap-3 rounded-md px-2 py-2 hover:bg-surface-2", mentionsMe && "border-l-4 border-danger bg-accent-soft/40")}>
      <Avatar name={m.from} kind={props.agent ? "agent" : "human"} decorative className="mt-0.5" />
      <div className="flex min-w-0 flex-1 flex-col gap-0.5">
        <div className="flex items-baseline gap-2 text-sm">
          <span className="font-semibold">{m.from}</span>
          {props.agent ? <Badge variant="neutral">agent</Badge> : null}
          <time dateTime={m.sent_at} className="text-xs text-muted">
            {new Date(m.sent_at).toLocaleString()}
          </time>
        </div>
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
        {props.canRedact && asking ? (
          <form
            className="mt-2 flex flex-wrap items-end gap-2"
            aria-label="Remove message"
            onSubmit={(e) => {
              e.preventDefault();
              redact.mutate({ ...props.conversationRef, seq: m.seq, reason: reason.trim() || null });
            }}
          >
            <Input label="Reason (optional)" hideLabel placeholder="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} className="min-w-48 flex-1" />
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
        <Button variant="ghost" size="sm" className="self-start text-muted" aria-label={`Remove message ${m.seq}`} onClick={() => setAsking(true)}>
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
        This chat is closed: its last human left. You can read it; former human participants can still remove messages. Start a new group chat to talk again.
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
          error={error ? (error.details.fields?.body ? `Message: ${error.details.fields.body}` : error.message) : undefined}
        />
        <div className="flex flex-wrap items-center gap-2">
          <Button
            variant="ghost"
            size="sm"
            // Honest until attachments exist: it says so rather than opening a picker that leads nowhere.
            onClick={() => toast.toast({ title: "Attachments are not available yet", description: "They come with a later version of the hub." })}
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
          <Button type="submit" variant="primary" size="sm" className="ml-auto" disabled={post.isPending || !body.trim()}>
            <SendHorizontal aria-hidden />
            Send
          </Button>
        </div>
      </form>
    </div>
  );
}

function ManageGroup(props: Props & { view: { id: string; title: string | null; created_by: string; participants: { member_id: string; handle: string; kind: string }[] }; closed: boolean; archived: boolean }) {
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
    return hub ? (hub.details.fields ? Object.entries(hub.details.fields).map(([k, v]) => `${k}: ${v}`).join(", ") : hub.message) : null;
  };
  return (
    <details className="group rounded-md border border-line">
      <summary className={cn("cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-muted hover:text-fg", focusRing)}>Manage this chat</summary>
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
              <Input label="Title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} className="min-w-48 flex-1" error={rename.error ? errorOf(rename.error) : undefined} />
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
                    <Button variant="ghost" size="sm" onClick={() => remove.mutate({ ...ref, member_id: p.member_id })} aria-label={`Remove ${p.handle}`}>
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
          <p className="text-sm text-muted">{props.closed ? "The chat is closed." : "Only the chat's creator and project admins rename it and change who is in it."}</p>
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

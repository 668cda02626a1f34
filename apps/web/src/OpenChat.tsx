"use client";
import type { LiveEvent, Message } from "@maity/domain";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
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

  if (conversation.isLoading) return <p aria-busy="true">Loading the conversation…</p>;
  if (conversation.isError || !conversation.data) return <p className="error">{hubErrorOf(conversation.error)?.message ?? "This conversation does not exist or you cannot see it."}</p>;
  const c = conversation.data;
  const archived = projects.data?.find((p) => p.owner === owner && p.slug === slug)?.archived ?? false;
  const observer = c.access === "observer";
  const closed = c.kind === "group" && c.closed_at !== null;
  const mine = c.participants.find((p) => p.member_id === me.id);
  const canRedact = me.kind === "human" && !observer;
  return (
    <article className="chat" aria-label={itemTitle(c)}>
      <header className="chat-head">
        <h1>{itemTitle(c)}</h1>
        <ul className="participants" aria-label="Participants">
          {c.participants.map((p) => (
            <li key={p.member_id}>
              {p.kind === "agent" ? (p.name ?? p.handle) : p.handle} <span className="kind">({p.kind})</span>
            </li>
          ))}
        </ul>
        {c.kind === "group" && c.observers.length > 0 ? (
          <p className="observers" role="note">
            Read along by {c.observers.join(", ")} — the owners of agents in this chat read everything they can read.
          </p>
        ) : null}
        {c.kind === "group" && !observer ? <ManageGroup {...props} view={c} closed={closed} archived={archived} /> : null}
      </header>
      {timeline.earlier !== null ? (
        <button type="button" className="earlier" onClick={() => void timeline.loadEarlier()}>
          Earlier messages
        </button>
      ) : (
        <p className="meta">The start of the conversation.</p>
      )}
      {timeline.state === "error" ? <p className="error">{timeline.error}</p> : null}
      <ol className="timeline" aria-label="Messages">
        {timeline.state === "loading" ? <li aria-busy="true">Loading…</li> : null}
        {timeline.state === "ready" && timeline.items.length === 0 ? <li className="empty">No messages yet.</li> : null}
        {timeline.items.map((m) => (
          <MessageRow key={m.seq} message={m} conversationRef={ref} canRedact={canRedact} onRedacted={(r) => timeline.merge([r])} me={me.id} />
        ))}
      </ol>
      <p className="typing" aria-live="polite">
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
          timeline.merge([m]);
        }}
      />
    </article>
  );
}

function MessageRow(props: { message: Message; conversationRef: { owner: string; slug: string; conversation_id: string }; canRedact: boolean; onRedacted: (m: Message) => void; me: string }) {
  const { message: m } = props;
  const trpc = useTRPC();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const redact = useMutation(trpc.messages.redact.mutationOptions({ onSuccess: (r) => (setAsking(false), props.onRedacted(r)) }));
  if (m.redacted) {
    return (
      <li className="tombstone">
        <em>
          Message removed by {m.redaction?.by ?? "someone"} · {timeLabel(m.redaction?.at ?? null)}
          {m.redaction?.reason ? ` — ${m.redaction.reason}` : ""}
        </em>
      </li>
    );
  }
  return (
    <li className={m.mentions.some((x) => x.member_id === props.me) ? "mentions-me" : undefined}>
      <div className="meta">
        {m.from} · <time dateTime={m.sent_at}>{new Date(m.sent_at).toLocaleString()}</time>
      </div>
      <div className="body">
        {withMentions(m.body ?? "", m.mentions).map((part, i) =>
          part.mention ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
            <mark key={i} className="mention">
              {part.text}
            </mark>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
            <span key={i}>{part.text}</span>
          ),
        )}
      </div>
      {props.canRedact ? (
        asking ? (
          <form
            className="redact"
            aria-label="Remove message"
            onSubmit={(e) => {
              e.preventDefault();
              redact.mutate({ ...props.conversationRef, seq: m.seq, reason: reason.trim() || null });
            }}
          >
            <input aria-label="Reason (optional)" placeholder="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} />
            <button type="submit" disabled={redact.isPending}>
              Remove for everyone
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              Cancel
            </button>
            {redact.error ? <span role="alert" className="error">{hubErrorOf(redact.error)?.message ?? "Could not remove it."}</span> : null}
          </form>
        ) : (
          <button type="button" className="link" aria-label={`Remove message ${m.seq}`} onClick={() => setAsking(true)}>
            Remove
          </button>
        )
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
  const [note, setNote] = useState<string | null>(null);
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
  if (props.closed)
    return (
      <p className="composer-note" role="status">
        This chat is closed: its last human left. You can read it; former human participants can still remove messages. Start a new group chat to talk again.
      </p>
    );
  if (props.observer)
    return (
      <p className="composer-note" role="status">
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
    <div>
      {props.archived ? (
        <p className="composer-note" role="status">
          This project is archived: you can still post, leave and remove messages; nobody new can be added.
        </p>
      ) : null}
      <form className="composer" onSubmit={submit} aria-label="Composer">
        <textarea
          aria-label="Message"
          value={body}
          rows={2}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
        />
        <button type="button" onClick={() => setNote("Attachments are not available yet: they come with a later version of the hub.")}>
          Attach
        </button>
        <button type="submit" disabled={post.isPending || !body.trim()}>
          Send
        </button>
        {props.human ? (
          <label className="inline switch">
            <input
              type="checkbox"
              role="switch"
              aria-label="Meat proxy (lead)"
              checked={switchOn}
              aria-checked={switchOn}
              onChange={(e) => {
                setLead(e.target.checked);
                meat.mutate({ ...props.conversationRef, meat_proxy: e.target.checked });
              }}
            />{" "}
            Meat proxy
          </label>
        ) : null}
      </form>
      {note ? (
        <p role="status" className="meta">
          {note}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error.details.fields?.body ? `Message: ${error.details.fields.body}` : error.message}
        </p>
      ) : null}
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
    <details className="manage">
      <summary>Manage this chat</summary>
      {manager && !props.closed ? (
        <>
          <form
            aria-label="Rename"
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate({ ...ref, title: title.trim() || null });
            }}
          >
            <label>
              Title <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
            </label>
            <button type="submit">Rename</button>
            {rename.error ? <span role="alert" className="error">{errorOf(rename.error)}</span> : null}
          </form>
          {props.archived ? (
            <p className="meta">The project is archived: nobody can be added.</p>
          ) : (
            <form
              aria-label="Add participant"
              onSubmit={(e) => {
                e.preventDefault();
                if (adding) add.mutate({ ...ref, member_id: adding });
              }}
            >
              <p className="meta">Everyone in a group chat writes to whoever is or will later be in it: someone you add can read the history.</p>
              <label>
                Add{" "}
                <select aria-label="Member to add" value={adding} onChange={(e) => setAdding(e.target.value)}>
                  <option value="">Choose a member</option>
                  {candidates.map((m) => (
                    <option key={m.member_id} value={m.member_id}>
                      {m.name} ({m.kind})
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" disabled={!adding}>
                Add
              </button>
              {add.error ? <span role="alert" className="error">{errorOf(add.error)}</span> : null}
            </form>
          )}
          <ul aria-label="Remove participants" className="plain">
            {view.participants
              .filter((p) => p.member_id !== me.id)
              .map((p) => (
                <li key={p.member_id}>
                  {p.handle}{" "}
                  <button type="button" onClick={() => remove.mutate({ ...ref, member_id: p.member_id })} aria-label={`Remove ${p.handle}`}>
                    Remove
                  </button>
                </li>
              ))}
          </ul>
          {remove.error ? <p role="alert" className="error">{errorOf(remove.error)}</p> : null}
        </>
      ) : (
        <p className="meta">{props.closed ? "The chat is closed." : "Only the chat's creator and project admins rename it and change who is in it."}</p>
      )}
      <button type="button" onClick={() => leave.mutate({ ...ref, member_id: me.id })}>
        Leave this chat
      </button>
      {leave.error ? <p role="alert" className="error">{errorOf(leave.error)}</p> : null}
    </details>
  );
}

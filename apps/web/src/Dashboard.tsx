"use client";
import type { ConversationItem, LiveEvent, MeItem } from "@maity/domain";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import { OpenChat } from "./OpenChat";
import { NewGroup } from "./NewGroup";
import { hubErrorOf, useTRPC } from "./trpc";
import { itemTitle, timeLabel } from "./format";
import { applyLiveEvent } from "./liveCache";

export type Open = { owner: string; slug: string; id: string } | null;
type Project = { owner: string; slug: string };

/** Live events, handed from the one feed to whatever shows the conversation they name. */
export const liveEvents = typeof window === "undefined" ? null : new EventTarget();

/** The dashboard: the chat list on the left, the open chat beside it (issue 4 "Layout"). */
export function Dashboard({ open }: { open: Open }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const signedIn = Boolean(me.data);
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        router.push("/login");
      },
    }),
  );
  useEffect(() => {
    if (me.isSuccess && !me.data) router.replace("/login");
  }, [me.isSuccess, me.data, router]);

  // One live feed for the page: the list re-bands and the open chat reloads on what it names.
  useSubscription(
    trpc.live.feed.subscriptionOptions(undefined, {
      enabled: signedIn,
      onData: (item) => {
        const event = (Array.isArray(item) ? item[1] : ((item as { data?: unknown }).data ?? item)) as LiveEvent;
        if (event.kind === "typing") {
          liveEvents?.dispatchEvent(new CustomEvent("live", { detail: event }));
          return;
        }
        // Issue 12: a message or a read updates the cached lists in place; anything else reads them again.
        const lists = [trpc.conversations.mine.pathKey(), trpc.conversations.list.pathKey()];
        if (!(me.data && applyLiveEvent(queryClient, lists, event, me.data.id, open))) {
          for (const queryKey of lists) void queryClient.invalidateQueries({ queryKey });
        }
        if (event.kind !== "message" && event.kind !== "read") void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
        liveEvents?.dispatchEvent(new CustomEvent("live", { detail: event }));
      },
    }),
  );

  const [filter, setFilter] = useState<Project | null>(null);
  const [observed, setObserved] = useState(false);
  const [creating, setCreating] = useState(false);
  const totals = useQuery({ ...trpc.conversations.mine.queryOptions({ limit: 1 }), enabled: signedIn });
  const unread = totals.data?.totals.unread ?? 0;
  const mentions = totals.data?.totals.mentions_unread ?? 0;
  useEffect(() => {
    document.title = unread > 0 ? `(${unread}${mentions > 0 ? ` · @${mentions}` : ""}) Maity` : "Maity";
  }, [unread, mentions]);

  if (me.isLoading) return <main aria-busy="true">Loading…</main>;
  if (me.isError) return <main className="error">Could not reach the hub. Reload to try again.</main>;
  if (!me.data) return <main>Redirecting to sign in…</main>;
  return (
    <main className="app">
      <header className="top">
        <Link href="/" className="brand">
          Maity
        </Link>
        <span className="badges">
          {unread > 0 ? <span className="badge">{unread} unread</span> : null}
          {mentions > 0 ? <span className="badge mention">{mentions} @</span> : null}
        </span>
        <span>
          <Link href="/agents">Your agents</Link> · Signed in as {me.data.handle}{" "}
          <button type="button" onClick={() => logout.mutate()}>
            Sign out
          </button>
        </span>
      </header>
      <div className="layout">
        <nav aria-label="Conversations" className="side">
          <ListControls filter={filter} setFilter={setFilter} observed={observed} setObserved={setObserved} onNew={() => setCreating(true)} />
          {creating ? <NewGroup defaultProject={filter ?? open} onClose={() => setCreating(false)} /> : null}
          <ConversationList filter={filter} observed={observed} open={open} />
        </nav>
        <section aria-label="Open conversation" className="main">
          {open ? <OpenChat key={`${open.owner}/${open.slug}/${open.id}`} {...open} me={me.data} /> : <p className="empty">Pick a conversation on the left.</p>}
        </section>
      </div>
    </main>
  );
}

function ListControls(props: { filter: Project | null; setFilter: (p: Project | null) => void; observed: boolean; setObserved: (v: boolean) => void; onNew: () => void }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const value = props.filter ? `${props.filter.owner}/${props.filter.slug}` : "";
  return (
    <div className="controls">
      <label>
        Project{" "}
        <select
          aria-label="Project filter"
          value={value}
          onChange={(e) => {
            const [owner, slug] = e.target.value.split("/");
            props.setFilter(owner && slug ? { owner, slug } : null);
          }}
        >
          <option value="">All projects</option>
          {projects.data?.map((p) => (
            <option key={p.id} value={p.full_name}>
              {p.name} ({p.full_name}){p.archived ? " — archived" : ""}
            </option>
          ))}
        </select>
      </label>
      <label className="inline">
        <input type="checkbox" checked={props.observed} onChange={(e) => props.setObserved(e.target.checked)} /> Read along
      </label>
      <button type="button" onClick={props.onNew}>
        New group chat
      </button>
    </div>
  );
}

/** A list item as the hub sends it (inferred from the domain's zod schemas); /me items carry `project`. */
type ListItem = ConversationItem & { project?: MeItem["project"] };

function ConversationList({ filter, observed, open }: { filter: Project | null; observed: boolean; open: Open }) {
  const trpc = useTRPC();
  const mine = useInfiniteQuery({
    ...trpc.conversations.mine.infiniteQueryOptions({ limit: 50, observed }, { getNextPageParam: (last) => last.next_cursor ?? undefined }),
    enabled: filter === null,
  });
  const project = useInfiniteQuery({
    ...trpc.conversations.list.infiniteQueryOptions(
      { owner: filter?.owner ?? "x", slug: filter?.slug ?? "x", limit: 50, observed },
      { getNextPageParam: (last) => last.next_cursor ?? undefined },
    ),
    enabled: filter !== null,
  });
  const query = filter ? project : mine;
  const items: (ListItem & { owner: string; slug: string })[] = (query.data?.pages ?? []).flatMap((page) =>
    page.items.map((item) => {
      const listed: ListItem = item;
      return { ...listed, owner: listed.project?.owner ?? filter?.owner ?? "", slug: listed.project?.slug ?? filter?.slug ?? "" };
    }),
  );
  // Paging as the user scrolls: the sentinel at the end loads the next page.
  const sentinel = useRef<HTMLLIElement | null>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  // Arrow keys move between list items; Tab still works as everywhere.
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>("a.item")];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    const next = links[Math.max(0, Math.min(links.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  if (query.isLoading) return <p aria-busy="true">Loading conversations…</p>;
  if (query.isError) return <p className="error">{hubErrorOf(query.error)?.message ?? "Could not load the conversations."}</p>;
  if (items.length === 0) return <p className="empty">{observed ? "No conversations, none read along." : "No conversations yet."}</p>;
  return (
    <ul className="list" aria-label="Conversation list" onKeyDown={onKeyDown}>
      {items.map((item) => (
        <ConversationRow key={`${item.owner}/${item.slug}/${item.id}`} item={item} current={open?.owner === item.owner && open.slug === item.slug && open.id === item.id} />
      ))}
      {hasNextPage ? (
        <li ref={sentinel}>
          <button type="button" onClick={() => void fetchNextPage()} disabled={isFetchingNextPage}>
            {isFetchingNextPage ? "Loading…" : "More conversations"}
          </button>
        </li>
      ) : null}
    </ul>
  );
}

function ConversationRow({ item, current }: { item: ListItem & { owner: string; slug: string }; current: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const ref = { owner: item.owner, slug: item.slug, conversation_id: item.id };
  const done = useCallback(() => {
    setError(null);
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
  }, [queryClient, trpc]);
  const onError = (e: unknown) => {
    const hub = hubErrorOf(e);
    setError(hub?.details.fields?.pin === "too_many" ? "You can pin at most 20 conversations. Unpin one first." : (hub?.message ?? "Could not change the pin."));
  };
  const pin = useMutation(trpc.conversations.pin.mutationOptions({ onSuccess: done, onError }));
  const unpin = useMutation(trpc.conversations.unpin.mutationOptions({ onSuccess: done, onError }));
  const title = itemTitle(item);
  const observer = item.access === "observer";
  const preview = item.last_message ? (item.last_message.redacted ? "message removed" : item.last_message.body) : "No messages yet";
  return (
    <li className={current ? "row current" : "row"}>
      <Link className="item" href={`/p/${item.owner}/${item.slug}/c/${item.id}`} aria-current={current ? "page" : undefined}>
        <span className="title">
          {item.pinned ? <span role="img" aria-label="pinned">📌 </span> : null}
          {title}
          {item.closed_at ? <span className="closed"> · closed</span> : null}
          {observer ? <span className="closed"> · reading along</span> : null}
        </span>
        {!observer && (item.unread ?? 0) > 0 ? <span className="badge">{item.unread} unread</span> : null}
        {!observer && (item.mentions_unread ?? 0) > 0 ? <span className="badge mention">{item.mentions_unread} @</span> : null}
        <span className={item.last_message?.redacted ? "preview removed" : "preview"}>{preview}</span>
        <span className="meta">
          {item.project ? `${item.project.full_name} · ` : ""}
          {timeLabel(item.last_message_at)}
        </span>
      </Link>
      <button
        type="button"
        className="pin"
        aria-pressed={item.pinned}
        aria-label={item.pinned ? `Unpin ${title}` : `Pin ${title}`}
        onClick={() => (item.pinned ? unpin.mutate(ref) : pin.mutate(ref))}
      >
        {item.pinned ? "Unpin" : "Pin"}
      </button>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </li>
  );
}

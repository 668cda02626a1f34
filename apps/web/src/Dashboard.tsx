"use client";
import type { ConversationItem, MeItem } from "@maity/domain";
import {
  Avatar,
  Badge,
  Button,
  Checkbox,
  cn,
  Dialog,
  DialogContent,
  DialogTrigger,
  focusRing,
  IconButton,
  Select,
  Skeleton,
} from "@maity/ui";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessagesSquare, Pin, PinOff, Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { OpenChat } from "./chat/OpenChat";
import { NewGroup } from "./NewGroup";
import { hubErrorOf, useTRPC } from "./trpc";
import { itemTitle, timeLabel } from "./format";

export type Open = { owner: string; slug: string; id: string } | null;
type Project = { owner: string; slug: string };

/** The dashboard: the chat list on the left, the open chat beside it (issue 4 "Layout"). */
export function Dashboard({ open }: { open: Open }) {
  const trpc = useTRPC();
  const router = useRouter();
  const _queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const _signedIn = Boolean(me.data);
  useEffect(() => {
    if (me.isSuccess && !me.data) router.replace("/login");
  }, [me.isSuccess, me.data, router]);

  const [filter, setFilter] = useState<Project | null>(null);
  const [observed, setObserved] = useState(false);
  const [creating, setCreating] = useState(false);

  if (me.isLoading) return <DashboardSkeleton />;
  if (me.isError) return <p className="m-6 text-danger-text">Could not reach the hub. Reload to try again.</p>;
  if (!me.data) return <p className="m-6 text-muted">Redirecting to sign in…</p>;
  return (
    <div className="flex min-h-0 flex-1 flex-col md:grid md:h-[calc(100dvh-3.5rem)] md:grid-cols-[minmax(260px,340px)_1fr]">
      <nav aria-label="Conversations" className="flex min-h-0 flex-col border-line bg-surface md:border-r">
        <ListControls
          filter={filter}
          setFilter={setFilter}
          observed={observed}
          setObserved={setObserved}
          newGroup={
            <Dialog open={creating} onOpenChange={setCreating}>
              <DialogTrigger asChild>
                <Button variant="primary" size="sm">
                  <Plus aria-hidden />
                  New group chat
                </Button>
              </DialogTrigger>
              <DialogContent
                title="New group chat"
                description="A title and the people and agents to talk with; you are one of them."
              >
                <NewGroup defaultProject={filter ?? open} onClose={() => setCreating(false)} />
              </DialogContent>
            </Dialog>
          }
        />
        <div className="min-h-0 flex-1 md:overflow-y-auto">
          <ConversationList filter={filter} observed={observed} open={open} />
        </div>
      </nav>
      <section aria-label="Open conversation" className="flex min-h-0 min-w-0 flex-1 flex-col bg-bg">
        {open ? (
          <OpenChat key={`${open.owner}/${open.slug}/${open.id}`} {...open} me={me.data} />
        ) : (
          <div className="m-auto flex max-w-sm flex-col items-center gap-3 p-8 text-center text-muted">
            <MessagesSquare className="size-10" aria-hidden />
            <p>Pick a conversation on the left, or start a new group chat.</p>
          </div>
        )}
      </section>
    </div>
  );
}

function DashboardSkeleton() {
  return (
    <div aria-busy="true" className="grid flex-1 gap-4 p-4 md:grid-cols-[minmax(260px,340px)_1fr]">
      <span className="sr-only">Loading…</span>
      <div className="flex flex-col gap-3">
        {[0, 1, 2, 3, 4].map((i) => (
          <Skeleton key={i} className="h-14" />
        ))}
      </div>
      <Skeleton className="hidden h-64 md:block" />
    </div>
  );
}

function ListControls(props: {
  filter: Project | null;
  setFilter: (p: Project | null) => void;
  observed: boolean;
  setObserved: (v: boolean) => void;
  newGroup: ReactNode;
}) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const value = props.filter ? `${props.filter.owner}/${props.filter.slug}` : "";
  return (
    <div className="flex flex-col gap-3 border-b border-line p-3">
      <div className="flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">Conversations</h2>
        {props.newGroup}
      </div>
      <Select
        label="Project filter"
        hideLabel
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
      </Select>
      <Checkbox label="Read along" checked={props.observed} onCheckedChange={(v) => props.setObserved(v === true)} />
    </div>
  );
}

/** A list item as the hub sends it (inferred from the domain's zod schemas); /me items carry `project`. */
type ListItem = ConversationItem & { project?: MeItem["project"] };

function ConversationList({ filter, observed, open }: { filter: Project | null; observed: boolean; open: Open }) {
  const trpc = useTRPC();
  const mine = useInfiniteQuery({
    ...trpc.conversations.mine.infiniteQueryOptions(
      { limit: 50, observed },
      { getNextPageParam: (last) => last.next_cursor ?? undefined },
    ),
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
      return {
        ...listed,
        owner: listed.project?.owner ?? filter?.owner ?? "",
        slug: listed.project?.slug ?? filter?.slug ?? "",
      };
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

  if (query.isLoading)
    return (
      <div aria-busy="true" className="flex flex-col gap-2 p-3">
        <span className="sr-only">Loading conversations…</span>
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} className="h-14" />
        ))}
      </div>
    );
  if (query.isError)
    return (
      <p className="p-4 text-sm text-danger-text">
        {hubErrorOf(query.error)?.message ?? "Could not load the conversations."}
      </p>
    );
  if (items.length === 0)
    return (
      <p className="p-4 text-sm text-muted">
        {observed
          ? "No conversations, none read along."
          : "No conversations yet: start a group chat with “New group chat”."}
      </p>
    );
  return (
    <ul className="flex flex-col gap-0.5 p-2" aria-label="Conversation list" onKeyDown={onKeyDown}>
      {items.map((item) => (
        <ConversationRow
          key={`${item.owner}/${item.slug}/${item.id}`}
          item={item}
          current={open?.owner === item.owner && open.slug === item.slug && open.id === item.id}
        />
      ))}
      {hasNextPage ? (
        <li ref={sentinel} className="p-2">
          <Button
            variant="ghost"
            size="sm"
            className="w-full"
            onClick={() => void fetchNextPage()}
            disabled={isFetchingNextPage}
          >
            {isFetchingNextPage ? "Loading…" : "More conversations"}
          </Button>
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
    setError(
      hub?.details.fields?.pin === "too_many"
        ? "You can pin at most 20 conversations. Unpin one first."
        : (hub?.message ?? "Could not change the pin."),
    );
  };
  const pin = useMutation(trpc.conversations.pin.mutationOptions({ onSuccess: done, onError }));
  const unpin = useMutation(trpc.conversations.unpin.mutationOptions({ onSuccess: done, onError }));
  const title = itemTitle(item);
  const observer = item.access === "observer";
  const preview = item.last_message
    ? item.last_message.redacted
      ? "message removed"
      : item.last_message.body
    : "No messages yet";
  const unread = observer ? 0 : (item.unread ?? 0);
  const mentioned = observer ? 0 : (item.mentions_unread ?? 0);
  const agent = item.kind === "direct" ? item.participants.find((p) => p.kind === "agent") : undefined;
  // "row", "item" and "title" name the parts for the e2e specs; the look is all Tailwind.
  return (
    <li
      className={cn(
        "row group relative grid grid-cols-[1fr_auto] items-start rounded-md",
        current ? "bg-accent-soft" : "hover:bg-surface-2",
      )}
    >
      <Link
        className={cn(
          "item flex min-w-0 gap-3 rounded-md p-2 no-underline",
          focusRing,
          "focus-visible:outline-offset-0",
        )}
        href={`/p/${item.owner}/${item.slug}/c/${item.id}`}
        aria-current={current ? "page" : undefined}
      >
        <Avatar
          name={agent ? (agent.name ?? agent.handle) : title}
          kind={agent ? "agent" : "human"}
          decorative
          className="mt-0.5"
        />
        <span className="flex min-w-0 flex-1 flex-col gap-0.5">
          <span className="flex min-w-0 items-baseline gap-2">
            <span className={cn("title min-w-0 flex-1 truncate text-sm", unread > 0 ? "font-semibold" : "font-medium")}>
              {item.pinned ? <Pin className="mr-1 inline size-3.5 text-muted" role="img" aria-label="pinned" /> : null}
              {title}
              {item.closed_at ? <span className="font-normal text-muted"> · closed</span> : null}
              {observer ? <span className="font-normal text-muted"> · reading along</span> : null}
            </span>
            <span className="shrink-0 text-xs text-muted">{timeLabel(item.last_message_at)}</span>
          </span>
          <span className="flex min-w-0 items-center gap-2">
            <span className={cn("min-w-0 flex-1 truncate text-sm text-muted", item.last_message?.redacted && "italic")}>
              {preview}
            </span>
            {unread > 0 ? <Badge variant="count">{unread} unread</Badge> : null}
            {mentioned > 0 ? <Badge variant="mention">{mentioned} @</Badge> : null}
          </span>
          {item.project ? <span className="truncate text-xs text-muted">{item.project.full_name}</span> : null}
        </span>
      </Link>
      <IconButton
        size="icon-sm"
        className="m-1.5"
        aria-pressed={item.pinned}
        aria-label={item.pinned ? `Unpin ${title}` : `Pin ${title}`}
        onClick={() => (item.pinned ? unpin.mutate(ref) : pin.mutate(ref))}
        icon={item.pinned ? <PinOff aria-hidden /> : <Pin aria-hidden />}
      />
      {error ? (
        <p role="alert" className="col-span-2 mx-2 mb-2 text-sm text-danger-text">
          {error}
        </p>
      ) : null}
    </li>
  );
}

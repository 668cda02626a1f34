"use client";
import { bandOf } from "@maity/domain";
import { BAND_WORDS, matchesListQuery } from "../wording/chatView";
import { Button, Skeleton } from "@maity/ui";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import { ConversationRow } from "./ConversationRow";
import { isOpen, type ListRow, type Open, type Project } from "./types";

const PAGE = 50;

/** The cross-project list's query (§9.3), shared with the Dashboard, which starts it beside auth.me. */
export function useMyList(observed: boolean, enabled: boolean) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.conversations.mine.infiniteQueryOptions(
      { limit: PAGE, observed },
      { getNextPageParam: (last) => last.next_cursor ?? undefined },
    ),
    enabled,
  });
}
/** A search reads on by itself up to this many conversations, then asks: its cost stays bounded. */
const SEARCH_STEP = 1_000;

type VirtualRow = { type: "band"; band: ListRow["band"] } | { type: "item"; item: ListRow } | { type: "footer" };

/** The clock the relative times read, moving on every half minute. */
function useNow(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The chat list (§9.3): one infinite query (the cross-project /me list, or a project's),
 * virtualised with @tanstack/react-virtual so 5,000 conversations keep a few dozen rows in the DOM;
 * band headings are rows of their own; the next page loads as the end nears.
 */
export function ConversationList(props: {
  filter: Project | null;
  observed: boolean;
  search: string;
  open: Open;
  readerId: string;
}) {
  const { filter, observed, open } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const now = useNow();
  const mine = useMyList(observed, filter === null);
  const project = useInfiniteQuery({
    ...trpc.conversations.list.infiniteQueryOptions(
      { owner: filter?.owner ?? "x", slug: filter?.slug ?? "x", limit: PAGE, observed },
      { getNextPageParam: (last) => last.next_cursor ?? undefined },
    ),
    enabled: filter !== null,
  });
  const query = filter ? project : mine;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;

  const items: ListRow[] = useMemo(
    () =>
      (query.data?.pages ?? []).flatMap((page) =>
        page.items.map((item) => {
          const listed = item as ListRow;
          const owner = listed.project?.owner ?? filter?.owner ?? "";
          const slug = listed.project?.slug ?? filter?.slug ?? "";
          return {
            ...listed,
            owner,
            slug,
            key: `${owner}/${slug}/${listed.id}`,
            band: bandOf(listed),
            href: `/p/${owner}/${slug}/c/${listed.id}`,
          };
        }),
      ),
    [query.data, filter],
  );
  const search = props.search.trim();
  const shown = useMemo(() => (search ? items.filter((i) => matchesListQuery(i, search)) : items), [items, search]);

  // §9.3's four bands in the hub's order; a heading opens each, once more than one is there.
  const rows: VirtualRow[] = useMemo(() => {
    const out: VirtualRow[] = [];
    const several = new Set(shown.map((i) => i.band)).size > 1;
    let band: number | null = null;
    for (const item of shown) {
      if (several && item.band !== band) out.push({ type: "band", band: item.band });
      band = item.band;
      out.push({ type: "item", item });
    }
    if (shown.length > 0 && (hasNextPage || !search)) out.push({ type: "footer" });
    return out;
  }, [shown, hasNextPage, search]);

  const scrollRef = useRef<HTMLDivElement | null>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.type === "band" ? 30 : rows[i]?.type === "footer" ? 48 : 72),
    getItemKey: (i) => {
      const row = rows[i];
      return row?.type === "item" ? row.item.key : row?.type === "band" ? `band-${row.band}` : "footer";
    },
    overscan: 8,
  });
  const virtualItems = virtualizer.getVirtualItems();

  // Paging as the end nears (no search): the next 50 while 15 rows are still below.
  const lastShown = virtualItems.at(-1)?.index ?? 0;
  useEffect(() => {
    if (search || !hasNextPage || isFetchingNextPage) return;
    if (lastShown >= rows.length - 15) void fetchNextPage();
  }, [search, hasNextPage, isFetchingNextPage, lastShown, rows.length, fetchNextPage]);

  // A search reads on by itself up to a bound, so a match beyond the loaded pages is found; past
  // the bound the list says how many it searched and asks before reading more.
  const [searchBound, setSearchBound] = useState(SEARCH_STEP);
  useEffect(() => {
    if (!search) setSearchBound(SEARCH_STEP);
  }, [search]);
  useEffect(() => {
    if (search && hasNextPage && !isFetchingNextPage && items.length < searchBound) void fetchNextPage();
  }, [search, hasNextPage, isFetchingNextPage, items.length, searchBound, fetchNextPage]);

  /** Focus a row's link, scrolling it into the rendered window first. */
  const focusRow = (index: number) => {
    virtualizer.scrollToIndex(index, { align: "auto" });
    requestAnimationFrame(() =>
      requestAnimationFrame(() =>
        scrollRef.current?.querySelector<HTMLAnchorElement>(`li[data-index="${index}"] a.item`)?.focus(),
      ),
    );
  };

  // The open chat's row comes into view once, when the list first has it (a reload, a link).
  const revealed = useRef(false);
  useEffect(() => {
    if (revealed.current || !open || rows.length === 0) return;
    revealed.current = true;
    const at = rows.findIndex((r) => r.type === "item" && isOpen(r.item, open));
    if (at >= 0) virtualizer.scrollToIndex(at, { align: "center" });
  }, [open, rows, virtualizer]);

  // Alt+↑ / Alt+↓ anywhere on the dashboard open the previous / next chat in list order.
  const latest = useRef({ shown, open, rows });
  latest.current = { shown, open, rows };
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
      const { shown: list, open: current } = latest.current;
      if (list.length === 0) return;
      const at = list.findIndex((i) => isOpen(i, current));
      const next = e.key === "ArrowDown" ? (at < 0 ? 0 : at + 1) : at < 0 ? 0 : at - 1;
      const target = list[next];
      if (!target) return;
      e.preventDefault();
      router.push(target.href);
      const index = latest.current.rows.findIndex((r) => r.type === "item" && r.item.key === target.key);
      if (index >= 0) virtualizer.scrollToIndex(index, { align: "auto" });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router, virtualizer]);

  // Arrow keys move between rows (band headings skipped), Home/End to the ends; Tab works as anywhere.
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.altKey || !["ArrowDown", "ArrowUp", "Home", "End"].includes(e.key)) return;
    const link = (e.target as HTMLElement).closest("a.item");
    const li = link?.closest<HTMLLIElement>("li[data-index]");
    if (!li) return;
    const itemIndexes = rows.flatMap((r, i) => (r.type === "item" ? [i] : []));
    const at = itemIndexes.indexOf(Number(li.dataset.index));
    const to =
      e.key === "Home"
        ? 0
        : e.key === "End"
          ? itemIndexes.length - 1
          : Math.max(0, Math.min(itemIndexes.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)));
    const target = itemIndexes[to];
    if (target === undefined) return;
    e.preventDefault();
    focusRow(target);
  };

  const status = search ? (
    <p role="status" className="border-b border-line px-3 py-1.5 text-xs text-muted">
      {shown.length === 0 ? "No conversation matches" : `${shown.length} ${shown.length === 1 ? "match" : "matches"}`}{" "}
      in {items.length} loaded {items.length === 1 ? "conversation" : "conversations"}
      {hasNextPage ? (
        items.length < searchBound ? (
          " — reading more…"
        ) : (
          <>
            {"; there are more. "}
            <button
              type="button"
              className="cursor-pointer font-medium text-accent underline"
              onClick={() => setSearchBound(items.length + SEARCH_STEP)}
            >
              Search the next {SEARCH_STEP.toLocaleString("en")}
            </button>
          </>
        )
      ) : (
        " (all of them)."
      )}
    </p>
  ) : null;

  if (query.isLoading)
    return (
      <div aria-busy="true" className="flex flex-col gap-1 p-3">
        <span className="sr-only">Loading conversations…</span>
        {[0, 1, 2, 3, 4, 5].map((i) => (
          <div key={i} className="flex gap-3 p-2">
            <Skeleton className="size-8 shrink-0 rounded-full" />
            <div className="flex flex-1 flex-col gap-1.5">
              <Skeleton className="h-3.5 w-2/3" />
              <Skeleton className="h-3.5 w-full" />
            </div>
          </div>
        ))}
      </div>
    );
  if (query.isError)
    return (
      <div role="alert" className="flex flex-col items-start gap-2 p-4 text-sm text-danger-text">
        <p>Could not load the conversations: {hubErrorOf(query.error)?.message ?? "the hub did not answer."}</p>
        <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    );
  if (items.length === 0)
    return (
      <p className="p-4 text-sm text-muted">
        {observed
          ? "Nothing here, and nothing read along: chats your agents take part in appear here once you read along."
          : filter
            ? "No conversations in this project yet: start one with “New group chat”, or choose “All projects”."
            : "No conversations yet: start a group chat with “New group chat”, or add an agent in “Your agents” to talk with it directly."}
      </p>
    );
  return (
    <>
      {status}
      <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto overscroll-contain" data-list-scroller>
        {shown.length === 0 ? (
          <p className="p-4 text-sm text-muted">
            Nothing matches “{search}”. Try a participant's handle or part of the title, or clear the search (Esc).
          </p>
        ) : (
          <ul
            aria-label="Conversation list"
            className="relative w-full"
            style={{ height: virtualizer.getTotalSize() }}
            onKeyDown={onKeyDown}
          >
            {virtualItems.map((v) => {
              const row = rows[v.index];
              const style = { transform: `translateY(${v.start}px)` };
              if (!row) return null;
              if (row.type === "item")
                return (
                  <ConversationRow
                    key={v.key}
                    index={v.index}
                    measure={virtualizer.measureElement}
                    start={v.start}
                    item={row.item}
                    current={isOpen(row.item, open)}
                    readerId={props.readerId}
                    now={now}
                    showProject={filter === null}
                  />
                );
              if (row.type === "band")
                return (
                  <li
                    key={v.key}
                    data-index={v.index}
                    ref={virtualizer.measureElement}
                    style={style}
                    className="band absolute top-0 left-0 w-full px-4 pt-3 pb-1"
                  >
                    <h3 className="text-xs font-semibold tracking-wide text-muted uppercase">{BAND_WORDS[row.band]}</h3>
                  </li>
                );
              return (
                <li
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  style={style}
                  className="absolute top-0 left-0 w-full p-2"
                >
                  {hasNextPage ? (
                    <Button
                      variant="ghost"
                      size="sm"
                      className="w-full"
                      onClick={() => void fetchNextPage()}
                      disabled={isFetchingNextPage}
                    >
                      {isFetchingNextPage ? "Loading more…" : "More conversations"}
                    </Button>
                  ) : (
                    <p className="py-1 text-center text-xs text-muted">
                      {items.length === 1 ? "That is the only conversation." : `All ${items.length} conversations.`}
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </>
  );
}

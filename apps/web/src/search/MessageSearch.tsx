"use client";
import type { SearchResult } from "@maity/domain";
import { Button, cn, focusRing, IconButton, SegmentedControl, Skeleton } from "@maity/ui";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Bot, TextSearch, Users, X } from "lucide-react";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { hubErrorOf, useTRPC, useTRPCClient } from "../trpc";
import { type Named, nameOf, relativeTime } from "../wording/chatView";
import { onOpenSearch, openSearch, requestJump } from "./bus";
import { excerpt, groupByChat, resultHref, sendable } from "./highlight";

type Sort = "newest" | "relevance";
const DEBOUNCE_MS = 200;
const PAGE = 20;
const ID = "message-search";
const BUTTON_ID = `${ID}-button`;
const optionId = (i: number) => `${ID}-option-${i}`;
const SORTS = [
  { value: "newest" as const, label: "Newest" },
  { value: "relevance" as const, label: "Relevance" },
];
/** The operators the hub understands in `q` (DESIGN §4d), shown while the field is empty. */
const HINTS: [string, string][] = [
  ["words", "every word must match; the last one may be unfinished"],
  ['"a phrase"', "these words, in this order"],
  ["from:@handle", "written by someone"],
  ["in:release", "in a chat whose title has this (in:@agent for a direct chat)"],
  ["has:file", "with a file (or has:poll, has:card)"],
  ["after:2026-01-31", "from that day on (before: for earlier)"],
];

/** `/` focuses the search from anywhere but a field being typed in, an open dialog or a menu. */
function typingIn(target: EventTarget | null): boolean {
  const el = target instanceof HTMLElement ? target : null;
  if (!el) return false;
  if (el.isContentEditable) return true;
  return Boolean(el.closest('input, textarea, select, [role="dialog"], [role="menu"], [role="alertdialog"]'));
}

/**
 * Message search in the header (DESIGN §4d, issue 31). A combobox: typing searches every chat the
 * reader may read (search.messages, debounced, newest first or by relevance), the results grouped
 * by chat under the field on a wide screen and on a sheet of their own on a phone; ↑/↓ move through
 * them (aria-activedescendant), Enter or a click opens one — its chat, jumped to the message — and
 * Esc closes, focus going back where it was. `/` focuses the field from anywhere but a text field;
 * the quick switcher opens it with what was typed there.
 */
export function MessageSearch() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const [q, setQ] = useState("");
  const [debounced, setDebounced] = useState("");
  const [sort, setSort] = useState<Sort>("newest");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const root = useRef<HTMLDivElement>(null);
  const field = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);

  // Typing settles before the hub is asked; an answer for older words never shows (each words' own query).
  useEffect(() => {
    const t = setTimeout(() => setDebounced(q.trim()), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [q]);
  const enabled = sendable(debounced);
  // Pages by hand: tRPC's infiniteQueryOptions adds `direction` to the input, which the hub's strict
  // searchQuery refuses; `cursor` is the only paging field it takes.
  const search = useInfiniteQuery({
    queryKey: [...trpc.search.messages.queryKey({ q: debounced, sort, limit: PAGE }), "pages"],
    queryFn: ({ pageParam, signal }) =>
      client.search.messages.query(
        { q: debounced, sort, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled,
    staleTime: 15_000,
    // The last answer stays (dimmed) while the next words are asked: no flicker between keystrokes.
    placeholderData: keepPreviousData,
  });
  const items: SearchResult[] = enabled ? (search.data?.pages.flatMap((p) => p.items) ?? []) : [];
  const groups = groupByChat(items);
  const flat = groups.flatMap((g) => g.results);
  const ids = [...new Set(items.map((r) => r.message.from))].sort();
  const names = useQuery({
    ...trpc.projects.names.queryOptions({ ids: ids.slice(0, 500) }),
    enabled: ids.length > 0,
    staleTime: 60_000,
    placeholderData: (previous) => previous,
  });
  const people = new Map<string, Named>((names.data ?? []).map((n) => [n.member_id, n]));

  // New words or a new order start from the top of the list.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the words and the order are the triggers
  useEffect(() => setActive(-1), [debounced, sort]);
  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView({ block: "nearest" });
  }, [active]);

  // On a phone the field shows once the sheet is open: focus it again once that render is committed.
  const [focusAsked, setFocusAsked] = useState(0);
  const focusField = useCallback(() => {
    input.current?.focus();
    setFocusAsked((n) => n + 1);
  }, []);
  useLayoutEffect(() => {
    if (focusAsked > 0) input.current?.focus();
  }, [focusAsked]);
  const start = useCallback(
    (from: Element | null) => {
      if (from instanceof HTMLElement && from !== document.body && !root.current?.contains(from))
        returnTo.current = from;
      setOpen(true);
      focusField();
    },
    [focusField],
  );
  const close = useCallback((restore: boolean) => {
    setOpen(false);
    setActive(-1);
    if (!restore) return;
    // Back where it was; on a phone, else to the search button the sheet came from.
    const to = returnTo.current ?? document.getElementById(BUTTON_ID);
    returnTo.current = null;
    // After the sheet is gone (a phone's search button shows again); on a wide screen focus stays in the field.
    if (to) requestAnimationFrame(() => to.isConnected && to.checkVisibility() && to.focus());
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || e.isComposing) return;
      if (typingIn(e.target)) return;
      e.preventDefault();
      start(document.activeElement);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [start]);
  useEffect(
    () =>
      onOpenSearch((request) => {
        if (request.q !== undefined) {
          setQ(request.q);
          setDebounced(request.q.trim());
        }
        returnTo.current = request.from ?? null;
        setOpen(true);
        focusField();
      }),
    [focusField],
  );

  // On a wide screen the panel hangs under the field, kept inside the window.
  const [place, setPlace] = useState<{ left: number; top: number } | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const measure = () => {
      const r = field.current?.getBoundingClientRect();
      if (!r) return;
      const width = Math.min(672, window.innerWidth - 32);
      setPlace({ left: Math.max(16, Math.min(r.left, window.innerWidth - width - 16)), top: r.bottom + 6 });
    };
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, [open]);

  const openResult = (r: SearchResult) => {
    requestJump({ owner: r.project.owner, slug: r.project.slug, id: r.conversation_id, seq: r.message.seq });
    returnTo.current = null;
    close(false);
    input.current?.blur();
    router.push(resultHref(r));
  };
  const more = () => {
    if (search.hasNextPage && !search.isFetchingNextPage) void search.fetchNextPage();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      if (!open) setOpen(true);
      if (flat.length === 0) return;
      if (active >= flat.length - 1) more();
      setActive(Math.min(active + 1, flat.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (flat.length) setActive(Math.max(active - 1, 0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      // Typed faster than the debounce: search these words now rather than open an older answer.
      if (q.trim() !== debounced) {
        setDebounced(q.trim());
        setOpen(true);
        return;
      }
      // The results shown are still the previous words' (placeholder data): none of them is opened.
      if (!open || flat.length === 0 || !enabled || search.isPlaceholderData) return;
      const r = flat[Math.max(active, 0)];
      if (r) openResult(r);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (open) close(true);
      else if (q) setQ("");
    }
  };

  // A refused query names its reason under the field (the hub's `invalid`, details.fields.q).
  const hubError = search.isError ? hubErrorOf(search.error) : null;
  const reason = hubError?.details.fields?.q ?? null;
  const errorText = search.isError
    ? reason
      ? `Check your search: ${reason}.`
      : (hubError?.message ?? "Could not search right now.")
    : null;
  const loading = enabled && search.isPending;
  const stale = enabled && search.isPlaceholderData;
  const status = !enabled
    ? ""
    : errorText
      ? errorText
      : loading || (stale && search.isFetching)
        ? "Searching…"
        : flat.length === 0
          ? "No messages match"
          : `${flat.length}${search.hasNextPage ? "+" : ""} ${flat.length === 1 ? "message" : "messages"} in ${groups.length} ${groups.length === 1 ? "chat" : "chats"}`;
  const now = new Date();
  let index = -1;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus leaving the field and its panel closes the panel
    <div
      ref={root}
      // A phone's sheet: the field and the results over the whole window, under nothing.
      className={cn(
        "items-center",
        open
          ? "flex max-md:fixed max-md:inset-0 max-md:z-50 max-md:flex-col max-md:items-stretch max-md:bg-bg"
          : "hidden md:flex",
      )}
      onBlur={(e) => {
        if (!root.current?.contains(e.relatedTarget as Node | null)) {
          setOpen(false);
          setActive(-1);
        }
      }}
    >
      <div
        ref={field}
        className={cn(
          "flex items-center gap-2",
          open && "max-md:border-b max-md:border-line max-md:bg-surface max-md:p-2",
        )}
      >
        <div className="relative flex-1">
          <TextSearch
            className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted"
            aria-hidden
          />
          <input
            ref={input}
            id={`${ID}-input`}
            type="search"
            role="combobox"
            aria-label="Search messages"
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={open && flat.length ? `${ID}-listbox` : undefined}
            aria-activedescendant={open && active >= 0 && active < flat.length ? optionId(active) : undefined}
            aria-invalid={errorText && reason ? true : undefined}
            aria-describedby={errorText ? `${ID}-error` : undefined}
            aria-keyshortcuts="/"
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            placeholder="Search messages"
            value={q}
            maxLength={500}
            onChange={(e) => {
              setQ(e.target.value);
              setOpen(true);
            }}
            onFocus={(e) => {
              if (e.relatedTarget instanceof HTMLElement && !root.current?.contains(e.relatedTarget))
                returnTo.current = e.relatedTarget;
              setOpen(true);
            }}
            onKeyDown={onKeyDown}
            className={cn(
              "h-8 w-full rounded-md border border-line-strong bg-surface pr-8 pl-8 text-sm text-fg placeholder:text-muted md:w-64 xl:w-80",
              "[&::-webkit-search-cancel-button]:hidden",
              errorText && reason && "border-danger",
              focusRing,
            )}
          />
          <kbd
            aria-hidden
            className="pointer-events-none absolute top-1/2 right-2 -translate-y-1/2 rounded border border-line px-1.5 text-xs font-medium text-muted max-md:hidden"
          >
            /
          </kbd>
        </div>
        <Button variant="ghost" size="sm" className="md:hidden" onClick={() => close(true)}>
          <X aria-hidden />
          Close
        </Button>
      </div>
      {open ? (
        // biome-ignore lint/a11y/noStaticElementInteractions: keeps focus in the combobox on a click; the controls inside are the interactive parts
        <div
          id={`${ID}-panel`}
          // Clicks inside the panel keep focus in the field (the combobox stays the one focused control).
          onMouseDown={(e) => e.preventDefault()}
          style={place ? ({ "--panel-left": `${place.left}px`, "--panel-top": `${place.top}px` } as never) : undefined}
          className={cn(
            "flex min-h-0 flex-col bg-surface text-fg",
            "max-md:flex-1",
            "md:fixed md:top-(--panel-top) md:left-(--panel-left) md:z-40 md:max-h-[min(70dvh,38rem)] md:w-[min(42rem,calc(100vw-2rem))] md:rounded-lg md:border md:border-line md:shadow-xl",
          )}
        >
          <div className="flex flex-wrap items-center justify-between gap-2 border-b border-line px-3 py-2">
            <p className="min-w-0 flex-1 truncate text-xs text-muted" aria-live="polite" aria-atomic="true">
              {errorText ? "" : status}
            </p>
            <SegmentedControl<Sort>
              aria-label="Sort results"
              value={sort}
              onValueChange={(v) => {
                setSort(v);
                focusField();
              }}
              segments={SORTS}
            />
          </div>
          {errorText ? (
            <div id={`${ID}-error`} role="alert" className="flex flex-col items-start gap-2 px-3 py-3 text-sm">
              <p className="text-danger-text">{errorText}</p>
              {reason ? null : (
                <Button variant="secondary" size="sm" onClick={() => void search.refetch()}>
                  Try again
                </Button>
              )}
            </div>
          ) : null}
          <div className="min-h-0 flex-1 overflow-y-auto overscroll-contain p-1.5">
            {!enabled ? (
              <div className="flex flex-col gap-2 px-2 py-2 text-sm">
                <p className="text-muted">Search the messages of every chat you can read.</p>
                <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
                  {HINTS.map(([op, what]) => (
                    <div key={op} className="contents">
                      <dt>
                        <code>{op}</code>
                      </dt>
                      <dd className="text-muted">{what}</dd>
                    </div>
                  ))}
                </dl>
              </div>
            ) : errorText ? null : loading ? (
              <div aria-busy="true" className="flex flex-col gap-2 p-2">
                <span className="sr-only">Searching…</span>
                <Skeleton className="h-4 w-1/3" />
                <Skeleton className="h-10" />
                <Skeleton className="h-10" />
              </div>
            ) : flat.length === 0 ? (
              <p className="px-3 py-6 text-center text-sm text-muted">No messages match “{debounced}”.</p>
            ) : (
              <div
                id={`${ID}-listbox`}
                role="listbox"
                aria-label={`Messages matching ${debounced}`}
                aria-busy={stale || undefined}
                className={cn("flex flex-col gap-1 transition-opacity", stale && "opacity-60")}
              >
                {groups.map((g, gi) => {
                  const headingId = `${ID}-group-${gi}`;
                  return (
                    // biome-ignore lint/a11y/useSemanticElements: a listbox's group of options (ARIA), not a form's fieldset
                    <div key={g.key} role="group" aria-labelledby={headingId} className="flex flex-col">
                      <div
                        id={headingId}
                        className="flex min-w-0 items-center gap-1.5 px-2 pt-2 pb-1 text-xs font-semibold text-muted"
                      >
                        {g.conversation.kind === "direct" ? (
                          <Bot className="size-3.5 shrink-0" aria-hidden />
                        ) : (
                          <Users className="size-3.5 shrink-0" aria-hidden />
                        )}
                        <span className="truncate text-fg">{g.conversation.title || "Untitled chat"}</span>
                        <span className="shrink-0" aria-hidden>
                          ·
                        </span>
                        <span className="truncate font-normal">{g.project.name}</span>
                      </div>
                      {g.results.map((r) => {
                        index += 1;
                        const i = index;
                        const m = r.message;
                        const shown = excerpt(m.body ?? "", m.body ? r.highlights : []);
                        const files = m.attachments.length;
                        return (
                          // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox's Enter opens the active option (aria-activedescendant)
                          <div
                            key={m.seq}
                            id={optionId(i)}
                            role="option"
                            // Never focused itself: the combobox keeps focus and names it (aria-activedescendant).
                            tabIndex={-1}
                            aria-selected={i === active}
                            data-seq={m.seq}
                            onClick={() => openResult(r)}
                            className={cn(
                              "flex cursor-pointer scroll-my-1 flex-col gap-0.5 rounded-md px-2 py-1.5 hover:bg-surface-2",
                              "aria-selected:bg-accent-soft aria-selected:outline-2 aria-selected:-outline-offset-2 aria-selected:outline-focus",
                            )}
                          >
                            <div className="flex min-w-0 items-baseline gap-2 text-xs">
                              <span className="truncate font-medium text-fg">
                                {people.has(m.from) || names.isFetched ? nameOf(m.from, people) : "…"}
                              </span>
                              <time
                                dateTime={m.sent_at}
                                title={new Date(m.sent_at).toLocaleString()}
                                className="ml-auto shrink-0 text-muted"
                              >
                                {relativeTime(m.sent_at, now)}
                              </time>
                            </div>
                            <p className="line-clamp-2 text-sm [overflow-wrap:anywhere]">
                              {shown.clippedStart ? "…" : ""}
                              {shown.parts.map((p, k) =>
                                p.mark ? (
                                  // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
                                  <mark key={k} className="rounded-sm bg-warning-soft px-0.5 font-semibold text-fg">
                                    {p.text}
                                  </mark>
                                ) : (
                                  // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
                                  <span key={k}>{p.text}</span>
                                ),
                              )}
                              {shown.clippedEnd ? "…" : ""}
                              {!m.body && files ? (
                                <span className="text-muted">{files === 1 ? "A file" : `${files} files`}</span>
                              ) : null}
                            </p>
                          </div>
                        );
                      })}
                    </div>
                  );
                })}
              </div>
            )}
            {enabled && !errorText && search.hasNextPage ? (
              <div className="flex justify-center p-2">
                <Button variant="ghost" size="sm" onClick={more} disabled={search.isFetchingNextPage}>
                  {search.isFetchingNextPage ? "Loading more…" : "More results"}
                </Button>
              </div>
            ) : null}
          </div>
          <p className="border-t border-line px-3 py-1.5 text-xs text-muted max-md:hidden">
            ↑ ↓ to move, Enter to open, Esc to close.
          </p>
        </div>
      ) : null}
    </div>
  );
}

/** A phone's way in (the header's field shows from `md` up): opens the search as a sheet. */
export function MessageSearchButton({ className }: { className?: string }) {
  return (
    <IconButton
      id={BUTTON_ID}
      aria-label="Search messages"
      aria-keyshortcuts="/"
      icon={<TextSearch aria-hidden />}
      size="icon-sm"
      variant="secondary"
      className={cn("md:hidden", className)}
      onClick={(e) => openSearch({ from: e.currentTarget })}
    />
  );
}

"use client";
import type { LiveEvent, Message } from "@maity/domain";
import { firstUnread } from "../wording/chatView";
import { useCallback, useEffect, useRef, useState } from "react";
import { liveEvents } from "../live";
import { hubErrorOf, useTRPCClient } from "../trpc";

export type ChatRef = { owner: string; slug: string; id: string };
const NEWEST = 2_147_483_647; // `before` above every seq: the newest page of the history
const WINDOW_PAGE = 200; // the hub's largest page (§1.4)
const CONTEXT = 30; // read lines shown above the "New messages" divider

/** Appends or replaces by seq, keeping seq order; the common case (newer than all) is an append. */
function mergeBySeq(current: Message[], incoming: Message[]): Message[] {
  const last = current.at(-1)?.seq ?? 0;
  const sorted = [...incoming].sort((a, b) => a.seq - b.seq);
  if (sorted.length && (sorted[0]?.seq ?? 0) > last) return [...current, ...sorted];
  const bySeq = new Map(current.map((m) => [m.seq, m]));
  for (const m of sorted) bySeq.set(m.seq, m);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * The reader's window and history (§9.2, §9.3). Opening reads the window from the reader's read
 * marker (`after` omitted: the hub starts at the marker and moves it, M-164), so a long chat
 * opens where the reader left off, not at its first line; the "New messages" divider goes before
 * the first of those lines, fixed for this opening. A few read lines above it (or, with nothing
 * new, the newest page) come from the history (`before`, which marks nothing read). Earlier pages
 * come on demand; a window longer than one page is read on as the reader scrolls down (`after`).
 * Live events append or replace by seq, so a resumed feed never doubles a message.
 */
export function useTimeline(
  { owner, slug, id }: ChatRef,
  reader: { me: string; access: string | undefined },
  onRead: () => void,
) {
  const client = useTRPCClient();
  const [items, setItems] = useState<Message[]>([]);
  const itemsRef = useRef<Message[]>([]);
  const [earlier, setEarlier] = useState<number | null | undefined>(undefined);
  const earlierRef = useRef<number | null | undefined>(undefined);
  const [caughtUp, setCaughtUp] = useState(true);
  const caughtUpRef = useRef(true);
  const [divider, setDivider] = useState<number | null>(null);
  const [state, setState] = useState<"loading" | "ready" | "error">("loading");
  const [error, setError] = useState<string | null>(null);
  const [loadingEarlier, setLoadingEarlier] = useState(false);
  const busy = useRef({ earlier: false, forward: false });
  const missed = useRef(false);
  const set = useCallback((next: Message[]) => {
    itemsRef.current = next;
    setItems(next);
  }, []);
  const merge = useCallback((incoming: Message[]) => set(mergeBySeq(itemsRef.current, incoming)), [set]);
  const setCaught = useCallback((v: boolean) => {
    caughtUpRef.current = v;
    setCaughtUp(v);
  }, []);
  const setEarlierSeq = useCallback((v: number | null) => {
    earlierRef.current = v;
    setEarlier(v);
  }, []);
  const query = useCallback(
    (q: { after?: number; before?: number; limit: number }) =>
      client.messages.list.query({ owner, slug, conversation_id: id, ...q }),
    [client, owner, slug, id],
  );

  /**
   * One more page of the window after the newest loaded line (moves the marker on the hub). Asked
   * again while a read is under way, it reads once more after it: that read's answer may predate
   * what the second ask was for (no message lost).
   */
  const again = useRef(false);
  const readForward = useCallback(async () => {
    if (busy.current.forward) {
      again.current = true;
      return;
    }
    busy.current.forward = true;
    try {
      for (let i = 0; i < 50; i++) {
        again.current = false;
        const after = itemsRef.current.at(-1)?.seq ?? 0;
        const res = await query({ after, limit: WINDOW_PAGE });
        merge(res.items);
        setCaught(!res.next_cursor);
        if (res.items.length) onRead();
        if (!again.current || res.next_cursor) break;
      }
    } finally {
      busy.current.forward = false;
    }
  }, [query, merge, setCaught, onRead]);

  const observer = reader.access === undefined ? undefined : reader.access === "observer";
  useEffect(() => {
    if (observer === undefined) return;
    let cancelled = false;
    missed.current = false; // what the feed brought before this load, the load has
    (async () => {
      // An observer has no marker and reads along from the newest lines (§9.2).
      const window = observer ? null : await query({ limit: WINDOW_PAGE });
      const forward = window?.items ?? [];
      const first = forward[0]?.seq;
      const back = await query({ before: first ?? NEWEST, limit: first ? CONTEXT : 50 });
      if (cancelled) return;
      set(mergeBySeq(back.items, forward));
      setEarlierSeq(back.earlier ?? null);
      setCaught(!window?.next_cursor);
      setDivider(firstUnread(forward, first === undefined ? null : first - 1, reader.me));
      setState("ready");
      if (forward.length) onRead();
    })().catch((e: unknown) => {
      if (cancelled) return;
      setError(hubErrorOf(e)?.message ?? "Could not load this conversation.");
      setState("error");
    });
    return () => {
      cancelled = true;
    };
  }, [observer, query, set, setEarlierSeq, setCaught, onRead, reader.me]);

  /** One page of history before the oldest loaded line; the number of lines it added. */
  const loadEarlier = useCallback(
    async (limit = 50): Promise<number> => {
      if (busy.current.earlier || earlierRef.current === null) return 0;
      busy.current.earlier = true;
      setLoadingEarlier(true);
      try {
        const before = itemsRef.current[0]?.seq ?? NEWEST;
        const res = await query({ before, limit });
        const had = itemsRef.current.length;
        merge(res.items);
        setEarlierSeq(res.earlier ?? null);
        return itemsRef.current.length - had;
      } finally {
        busy.current.earlier = false;
        setLoadingEarlier(false);
      }
    },
    [query, merge, setEarlierSeq],
  );

  /** Loads history until `seq` is loaded (a message link, a quoted reply); whether it is there. */
  const reach = useCallback(
    async (seq: number): Promise<boolean> => {
      for (let i = 0; i < 200 && (itemsRef.current[0]?.seq ?? NEWEST) > seq && earlierRef.current !== null; i++) {
        if (busy.current.earlier) await new Promise((r) => setTimeout(r, 50));
        else await loadEarlier(WINDOW_PAGE);
      }
      for (let i = 0; i < 50 && !caughtUpRef.current && (itemsRef.current.at(-1)?.seq ?? 0) < seq; i++)
        await readForward();
      return itemsRef.current.some((m) => m.seq === seq);
    },
    [loadEarlier, readForward],
  );

  const refreshOne = useCallback(
    async (seq: number) => {
      const res = await query({ before: seq + 1, limit: 1 });
      merge(res.items.filter((m) => m.seq === seq));
    },
    [query, merge],
  );
  // A live message arrives rendered; it is shown at once, and the marker moves with one
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
  const ready = state === "ready";
  // Before the first load is shown, the feed may bring this chat's lines (or say it has just become
  // live) while that load's answer is already on its way without them: noted, then read once ready.
  useEffect(() => {
    if (ready) return;
    const onEarly = (event: LiveEvent) => {
      if (event.kind === "listening" || (event.kind !== "typing" && event.conversation_id === id))
        missed.current = true;
    };
    return liveEvents?.listen(onEarly);
  }, [ready, id]);
  useEffect(() => {
    if (!ready || !missed.current) return;
    missed.current = false;
    if (caughtUpRef.current) void readForward();
  }, [ready, readForward]);
  useEffect(() => {
    if (!ready) return;
    const onLive = (event: LiveEvent) => {
      // The feed has just become live (a first connection or a reconnection): read what came meanwhile.
      if (event.kind === "listening") {
        if (caughtUpRef.current) void readForward();
        return;
      }
      if (event.conversation_id !== id || event.project?.owner !== owner || event.project.slug !== slug) return;
      if (event.kind === "redaction") void refreshOne(event.seq);
      // A vote or a reaction changed a message: read that one again if it is loaded
      // (not loaded, it arrives current whenever it is read).
      else if (event.kind === "message_changed") {
        if (itemsRef.current.some((m) => m.seq === event.seq)) void refreshOne(event.seq);
      } else if (event.kind !== "message") return;
      // Behind the newest (a long unread window): scrolling down reads it, in order, with the rest.
      else if (!caughtUpRef.current) return;
      else if (event.message) {
        merge([event.message]);
        if (!observer) markRead(event.message.seq);
      } else void readForward();
    };
    return liveEvents?.listen(onLive);
  }, [ready, id, owner, slug, readForward, refreshOne, merge, markRead, observer]);
  const current = useCallback(() => itemsRef.current, []);
  return {
    items,
    current,
    earlier,
    caughtUp,
    divider,
    state,
    error,
    loadingEarlier,
    loadEarlier,
    readForward,
    reach,
    merge,
    refreshOne,
  };
}

/** Who is writing in this chat right now (a person's composer or an agent's POST …/typing), for a few seconds each. */
export function useTyping({ owner, slug, id }: ChatRef, me: string): string[] {
  const [writing, setWriting] = useState<Record<string, number>>({});
  useEffect(() => {
    const onLive = (event: LiveEvent) => {
      if (
        event.kind !== "typing" ||
        !event.member_id ||
        event.member_id === me ||
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
    return liveEvents?.listen(onLive);
  }, [id, owner, slug, me]);
  return Object.keys(writing);
}

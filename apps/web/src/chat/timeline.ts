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
const AROUND_PAGE = 100; // lines read around a message opened in the history (half before, half after)

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
 *
 * Opened on one message (`open.around`: a search result, a message link — DESIGN §4d), it reads the
 * history around that message instead, marking nothing read; `openAround` does the same later (a
 * message far from the loaded lines) and `openLatest` goes back to the normal opening. Behind the
 * newest (`caughtUp` false), live lines wait until scrolling down reads them in order. While unread
 * lines the reader has never been shown lie above the loaded ones (`unseenAbove`: the page does not
 * reach down to the read marker), nothing moves the marker: live lines and newer pages (read
 * `around` the newest loaded line, which marks nothing) are only shown, and `openLatest` is the
 * normal opening, from the marker. Earlier pages reaching those lines end it.
 */
export function useTimeline(
  { owner, slug, id }: ChatRef,
  reader: { me: string; access: string | undefined },
  onRead: () => void,
  open: { around: number | null } = { around: null },
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
  // Which load the loaded lines come from: a page asked for before the lines were replaced is dropped.
  const epoch = useRef(0);
  // The message the lines were opened around (DESIGN §4d), or null in the normal live view.
  const [around, setAroundSeq] = useState<number | null>(null);
  // Opened around a message: the reader's read marker then (null: an observer, or the normal view),
  // and the first unread line when it lies above the first loaded one (else null).
  const marker = useRef<number | null>(null);
  const [unseen, setUnseenSeq] = useState<number | null>(null);
  const unseenRef = useRef<number | null>(null);
  const setUnseen = useCallback((v: number | null) => {
    unseenRef.current = v;
    setUnseenSeq(v);
  }, []);
  /** Unread lines never loaded lie between the read marker and the first loaded line: nothing may mark read. */
  const holding = useCallback(
    () => unseenRef.current !== null && (itemsRef.current[0]?.seq ?? 0) > unseenRef.current,
    [],
  );
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
   * what the second ask was for (no message lost). With unread lines unloaded above (`holding`), the
   * page is history instead: `around` the newest loaded line, its newer half, marking nothing read.
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
        const mine = epoch.current;
        const held = after > 0 && holding();
        const res = held
          ? await client.messages.list.query({ owner, slug, conversation_id: id, around: after, limit: WINDOW_PAGE })
          : await query({ after, limit: WINDOW_PAGE });
        if (epoch.current !== mine) break;
        const more = held ? res.later != null : Boolean(res.next_cursor);
        merge(held ? res.items.filter((m) => m.seq > after) : res.items);
        setCaught(!more);
        if (!held && res.items.length) onRead();
        if (!again.current || more) break;
      }
    } finally {
      busy.current.forward = false;
    }
  }, [client, owner, slug, id, query, merge, setCaught, onRead, holding]);

  const observer = reader.access === undefined ? undefined : reader.access === "observer";
  /**
   * The normal opening, ready to apply: the window from the reader's marker (which moves it) and a
   * few read lines above it, or (nothing new, an observer) the newest page of the history.
   */
  const fetchLatest = useCallback(
    async (asObserver: boolean) => {
      // An observer has no marker and reads along from the newest lines (§9.2).
      const window = asObserver ? null : await query({ limit: WINDOW_PAGE });
      const forward = window?.items ?? [];
      const first = forward[0]?.seq;
      const back = await query({ before: first ?? NEWEST, limit: first ? CONTEXT : 50 });
      return () => {
        set(mergeBySeq(back.items, forward));
        setEarlierSeq(back.earlier ?? null);
        setCaught(!window?.next_cursor);
        setDivider(firstUnread(forward, first === undefined ? null : first - 1, reader.me));
        setAroundSeq(null);
        marker.current = null;
        setUnseen(null);
        if (forward.length) onRead();
      };
    },
    [query, set, setEarlierSeq, setCaught, onRead, reader.me, setUnseen],
  );
  /**
   * The history around one message (DESIGN §4d: a search result or a message link opened), ready to
   * apply: about half a page before it and half after, marking nothing read. Older pages follow with
   * `before` as ever; newer ones with `after` from the page's last line until the newest is reached
   * (around the last line instead while unread lines lie unloaded above the page). A participant's
   * read marker comes with it (markRead at 0 moves nothing and answers it), and when the page starts
   * after the marker, the first unread line (the history around the line after the marker).
   */
  const fetchAround = useCallback(
    async (seq: number, asObserver: boolean) => {
      const ref = { owner, slug, conversation_id: id };
      const [res, at] = await Promise.all([
        client.messages.list.query({ ...ref, around: seq, limit: AROUND_PAGE }),
        asObserver ? null : client.messages.markRead.mutate({ ...ref, seq: 0 }).then((r) => r.read_marker),
      ]);
      const first = res.items[0]?.seq;
      const gap = at !== null && first !== undefined && first > at + 1 && res.earlier != null;
      const next = gap ? await client.messages.list.query({ ...ref, around: at + 1, limit: 2 }) : null;
      const unread = next?.items.find((m) => m.seq > (at ?? 0))?.seq ?? null;
      return () => {
        set(res.items);
        setEarlierSeq(res.earlier ?? null);
        setCaught(res.later == null);
        setAroundSeq(seq);
        marker.current = at;
        setUnseen(unread !== null && first !== undefined && unread < first ? unread : null);
      };
    },
    [client, owner, slug, id, set, setEarlierSeq, setCaught, setUnseen],
  );

  // The message to open around, until that load is shown: a later load (access changing) is the normal one.
  const opening = useRef(open.around);
  useEffect(() => {
    if (observer === undefined) return;
    let cancelled = false;
    const mine = ++epoch.current;
    missed.current = false; // what the feed brought before this load, the load has
    const around = opening.current;
    (around !== null ? fetchAround(around, observer) : fetchLatest(observer))
      .then((apply) => {
        if (cancelled || epoch.current !== mine) return;
        apply();
        opening.current = null;
        setState("ready");
      })
      .catch((e: unknown) => {
        if (cancelled) return;
        setError(hubErrorOf(e)?.message ?? "Could not load this conversation.");
        setState("error");
      });
    return () => {
      cancelled = true;
    };
  }, [observer, fetchAround, fetchLatest]);

  /**
   * Replaces what is loaded with the history around `seq` (a message far from the loaded lines);
   * whether the message is there (null: another load replaced this one meanwhile). Pages under way
   * for the lines replaced are dropped.
   */
  const openAround = useCallback(
    async (seq: number): Promise<boolean | null> => {
      const mine = ++epoch.current;
      const apply = await fetchAround(seq, reader.access === "observer");
      if (epoch.current !== mine) return null;
      apply();
      setState("ready");
      return itemsRef.current.some((m) => m.seq === seq);
    },
    [fetchAround, reader.access],
  );
  /** One page of history before the oldest loaded line; the number of lines it added. */
  const loadEarlier = useCallback(
    async (limit = 50): Promise<number> => {
      if (busy.current.earlier || earlierRef.current === null) return 0;
      busy.current.earlier = true;
      setLoadingEarlier(true);
      try {
        const before = itemsRef.current[0]?.seq ?? NEWEST;
        const mine = epoch.current;
        const res = await query({ before, limit });
        // The lines were replaced meanwhile (a jump, back to the latest): this page is not theirs.
        if (epoch.current !== mine) return 0;
        const had = itemsRef.current.length;
        merge(res.items);
        setEarlierSeq(res.earlier ?? null);
        // The first unread line loaded: back to the normal mode, where reading marks read again.
        if (unseenRef.current !== null && !holding()) setUnseen(null);
        return itemsRef.current.length - had;
      } finally {
        busy.current.earlier = false;
        setLoadingEarlier(false);
      }
    },
    [query, merge, setEarlierSeq, holding, setUnseen],
  );

  const refreshOne = useCallback(
    async (seq: number) => {
      const mine = epoch.current;
      const res = await query({ before: seq + 1, limit: 1 });
      // Only into the stretch loaded (a line outside it would leave a gap that no page fills).
      const first = itemsRef.current[0]?.seq ?? 0;
      const last = itemsRef.current.at(-1)?.seq ?? 0;
      if (epoch.current !== mine || seq < first || (seq > last && !caughtUpRef.current)) return;
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
  /**
   * The read marker moved to `seq` (the reader's own line, another window's read): unread lines above
   * the page that it passes are read already.
   */
  const markerMoved = useCallback(
    (seq: number) => {
      if (marker.current === null) return;
      marker.current = Math.max(marker.current, seq);
      const unread = unseenRef.current;
      if (unread === null || seq < unread) return;
      // The first unread line is now after `seq`: above the page still, or not (conservatively, its next seq).
      setUnseen(seq + 1 < (itemsRef.current[0]?.seq ?? 0) ? seq + 1 : null);
    },
    [setUnseen],
  );
  /**
   * Back from a message opened in the history to the normal live view: with the newest line loaded
   * already, only the view changes (and what it shows is read); else — or with the read marker
   * before the first loaded line — the opening's load, again (from the marker, the divider shown).
   */
  const openLatest = useCallback(async (): Promise<void> => {
    opening.current = null;
    const first = itemsRef.current[0]?.seq;
    const behindMarker = marker.current !== null && first !== undefined && first > marker.current;
    if (caughtUpRef.current && !behindMarker) {
      setAroundSeq(null);
      const newest = itemsRef.current.at(-1)?.seq;
      if (newest !== undefined && reader.access !== "observer") markRead(newest);
      return;
    }
    const mine = ++epoch.current;
    const apply = await fetchLatest(reader.access === "observer");
    if (epoch.current !== mine) return;
    apply();
    setState("ready");
  }, [fetchLatest, markRead, reader.access]);
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
      // The reader's marker moved (another window read, the reader wrote): those lines are read.
      if (event.kind === "read") markerMoved(event.seq);
      else if (event.kind === "message" && event.message?.from === reader.me) markerMoved(event.message.seq);
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
        // Shown, not read, while unread lines above the page were never shown.
        if (!observer && !holding()) markRead(event.message.seq);
      } else void readForward();
    };
    return liveEvents?.listen(onLive);
  }, [ready, id, owner, slug, readForward, refreshOne, merge, markRead, observer, holding, markerMoved, reader.me]);
  const current = useCallback(() => itemsRef.current, []);
  const unseenAbove = unseen !== null && (items[0]?.seq ?? 0) > unseen;
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
    around,
    unseenAbove,
    openAround,
    openLatest,
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

"use client";
import type { LiveEvent, Message } from "@maity/domain";
import { useCallback, useEffect, useRef, useState } from "react";
import { liveEvents } from "../live";
import { hubErrorOf, useTRPCClient } from "../trpc";

export type ChatRef = { owner: string; slug: string; id: string };
const NEWEST = 2_147_483_647; // `before` above every seq: the newest page of the history

/**
 * The reader's window and history. Opening reads the window (the hub moves the read marker);
 * "Earlier messages" pages back with `before`; live events append or replace by seq, so a resumed
 * feed never doubles a message.
 */
export function useTimeline({ owner, slug, id }: ChatRef, onRead: () => void) {
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
export function useTyping({ owner, slug, id }: ChatRef): string[] {
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

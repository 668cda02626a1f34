"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { WifiOff } from "lucide-react";
import { useParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { applyLiveEvent } from "./liveCache";
import { createLiveBus, type LiveBus } from "./liveBus";
import { useTRPC } from "./trpc";

/** Live events, handed from the one feed to whatever shows the conversation they name. */
export const liveEvents: LiveBus | null = typeof window === "undefined" ? null : createLiveBus();

/** The chat on screen, from the route /p/{owner}/{slug}/c/{id}; null elsewhere. */
export function useOpenChat(): { owner: string; slug: string; id: string } | null {
  const params = useParams<{ owner?: string; slug?: string; id?: string }>();
  return params.owner && params.slug && params.id ? { owner: params.owner, slug: params.slug, id: params.id } : null;
}

/**
 * The one live feed of a signed-in page, kept by the shell so every page (and the header's totals)
 * follows it: the cached lists update in place (no read of the list per event), the open chat hears
 * its events through `liveEvents`. While the feed reconnects, a banner says so: a stale page never
 * passes for a live one.
 */
export function LiveFeed() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const open = useOpenChat();
  const feed = useSubscription(
    trpc.live.feed.subscriptionOptions(undefined, {
      enabled: Boolean(me.data),
      // Every item is tracked at the feed's position (live.feed): one typed shape, nothing to guess.
      onData: ({ data: event }) => {
        // A vote or a reaction changed one message — only the open chat cares (timeline.ts).
        if (event.kind === "typing" || event.kind === "message_changed") {
          liveEvents?.emit(event);
          return;
        }
        const lists = [trpc.conversations.mine.pathKey(), trpc.conversations.list.pathKey()];
        // The feed is live from here (its first item on every connection): what happened between the
        // page's load and now is read again — the lists here, the open chat in timeline.ts.
        if (event.kind === "listening") {
          for (const queryKey of lists) void queryClient.invalidateQueries({ queryKey });
          liveEvents?.emit(event);
          return;
        }
        // A message or a read updates the cached lists in place; anything else reads them again.
        if (!(me.data && applyLiveEvent(queryClient, lists, event, me.data.id, open))) {
          for (const queryKey of lists) void queryClient.invalidateQueries({ queryKey });
        }
        if (event.kind !== "message" && event.kind !== "read")
          void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
        liveEvents?.emit(event);
      },
    }),
  );
  // Offline: the feed was up and is reconnecting (or failed), or the browser says it is offline.
  const [wasUp, setWasUp] = useState(false);
  const [online, setOnline] = useState(true);
  useEffect(() => {
    if (feed.status === "pending") setWasUp(true);
  }, [feed.status]);
  // Back online, the old stream may be dead without having said so (a dropped connection can sit
  // silent): start the feed afresh and read the lists again for what was missed.
  const restart = useRef(() => {});
  restart.current = () => {
    feed.reset();
    for (const queryKey of [trpc.conversations.mine.pathKey(), trpc.conversations.list.pathKey()])
      void queryClient.invalidateQueries({ queryKey });
  };
  useEffect(() => {
    const update = () => setOnline(navigator.onLine);
    const back = () => {
      update();
      restart.current();
    };
    update();
    window.addEventListener("online", back);
    window.addEventListener("offline", update);
    return () => {
      window.removeEventListener("online", back);
      window.removeEventListener("offline", update);
    };
  }, []);
  const offline = Boolean(me.data) && (!online || feed.status === "error" || (wasUp && feed.status === "connecting"));
  if (!offline) return null;
  return (
    <div
      role="status"
      className="offline flex items-center justify-center gap-2 border-b border-line bg-warning-soft px-4 py-1.5 text-sm"
    >
      <WifiOff className="size-4" aria-hidden />
      Reconnecting to the hub… new messages appear when the connection is back; what you send meanwhile may fail.
    </div>
  );
}

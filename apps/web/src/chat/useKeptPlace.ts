"use client";
import { useCallback, useLayoutEffect, useRef } from "react";

/**
 * Keeps the reader's place across every change above it (a page of earlier lines, lines let go of,
 * routing chips arriving): the first visible line stays where it was on screen. Done by hand — not
 * every browser anchors scrolling itself. A pending scroll (a linked line, the "New messages"
 * divider) wins once its target is mounted; a reader at the end follows new lines while
 * `following()` says the newest line is mounted and loaded.
 */
export function useKeptPlace(following: () => boolean) {
  const scroller = useRef<HTMLDivElement | null>(null);
  const list = useRef<HTMLOListElement | null>(null);
  const pinnedToEnd = useRef(true);
  const anchor = useRef<{ seq: string; offset: number } | null>(null);
  const pendingScroll = useRef<{ seq: number | "divider"; block: ScrollLogicalPosition } | null>(null);
  const followingRef = useRef(following);
  followingRef.current = following;
  const captureAnchor = useCallback(() => {
    const el = scroller.current;
    const rows = list.current?.children;
    if (!el || !rows?.length) return;
    const top = el.getBoundingClientRect().top;
    // The first line whose bottom is below the scroller's top edge (rows are in vertical order).
    let lo = 0;
    let hi = rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((rows[mid] as HTMLElement).getBoundingClientRect().bottom <= top) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < rows.length; i++) {
      const row = rows[i] as HTMLElement;
      if (row.dataset.seq) {
        anchor.current = { seq: row.dataset.seq, offset: row.getBoundingClientRect().top - top };
        return;
      }
    }
  }, []);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const wanted = pendingScroll.current;
    if (wanted) {
      const target =
        wanted.seq === "divider"
          ? el.querySelector('[data-divider="new"]')
          : el.querySelector(`[data-seq="${wanted.seq}"]`);
      if (target) {
        pendingScroll.current = null;
        target.scrollIntoView({ block: wanted.block });
        pinnedToEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
        captureAnchor();
        return;
      }
    }
    if (pinnedToEnd.current) {
      el.scrollTop = el.scrollHeight;
      return;
    }
    const a = anchor.current;
    const row = a && el.querySelector<HTMLElement>(`[data-seq="${a.seq}"]`);
    if (a && row) {
      const delta = row.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset;
      if (Math.abs(delta) >= 1) el.scrollTop += delta;
    }
  });
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    pinnedToEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48 && followingRef.current();
    captureAnchor();
  }, [captureAnchor]);
  return { scroller, list, pinnedToEnd, pendingScroll, onScroll };
}

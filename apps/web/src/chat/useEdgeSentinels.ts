"use client";
import { type RefObject, useEffect } from "react";

type Mounted = { start: number; end: number; length: number };

/**
 * Mounts or loads more lines while the top or bottom sentinel of the scroller is within `margin`
 * px of view (IntersectionObserver). After a page is mounted the sentinel may still be in view (a
 * short page): it goes on until it is not, or until a step changes nothing.
 */
export function useEdgeSentinels(o: {
  scroller: RefObject<HTMLDivElement | null>;
  top: RefObject<HTMLDivElement | null>;
  bottom: RefObject<HTMLDivElement | null>;
  active: boolean;
  towardsTop: () => Promise<void>;
  towardsBottom: () => Promise<void>;
  rangeRef: RefObject<Mounted>;
  margin: number;
}): void {
  const { scroller, top, bottom, active, towardsTop, towardsBottom, rangeRef, margin } = o;
  useEffect(() => {
    const root = scroller.current;
    if (!active || !root || !top.current || !bottom.current) return;
    let inView = { top: false, bottom: false };
    let stopped = false;
    const pump = async (which: "top" | "bottom") => {
      while (!stopped && inView[which]) {
        const before = rangeRef.current;
        await (which === "top" ? towardsTop() : towardsBottom());
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const after = rangeRef.current;
        if (before.start === after.start && before.end === after.end && before.length === after.length) break;
      }
    };
    const io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const which = e.target === top.current ? "top" : "bottom";
          inView = { ...inView, [which]: e.isIntersecting };
          if (e.isIntersecting) void pump(which);
        }
      },
      { root, rootMargin: `${margin}px 0px ${margin}px 0px` },
    );
    io.observe(top.current);
    io.observe(bottom.current);
    return () => {
      stopped = true;
      io.disconnect();
    };
  }, [scroller, top, bottom, active, towardsTop, towardsBottom, rangeRef, margin]);
}

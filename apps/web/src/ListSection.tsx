"use client";
import { Skeleton } from "@maity/ui";
import { type ReactNode, type RefObject, useEffect } from "react";
import { WithCode } from "./WithCode";

/**
 * A section of Your agents that lists what the person holds (devices, sessions): its heading (focus
 * target, opened by /agents#<id>), a line saying what it is, then loading, error, empty or the rows —
 * one frame, so each list says only what differs.
 */
export function ListSection(props: {
  id: string;
  title: string;
  intro: string;
  heading: RefObject<HTMLHeadingElement | null>;
  query: { isLoading: boolean; isError: boolean; data?: unknown };
  /** The error line's noun: "Could not load your <what>." */
  what: string;
  /** The empty list's words (`code` spans in backticks). */
  empty: string;
  count: number;
  children: ReactNode;
}) {
  const { id, heading } = props;
  const loaded = Boolean(props.query.data);
  // Linked to as /agents#<id>: the section shows once its list came.
  useEffect(() => {
    if (loaded && window.location.hash === `#${id}`) heading.current?.scrollIntoView({ block: "start" });
  }, [loaded, id, heading]);
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="mt-4 flex scroll-mt-4 flex-col gap-3">
      <div className="flex flex-col gap-1">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1} className="text-base font-semibold outline-none">
          {props.title}
        </h2>
        <p className="text-sm text-muted">{props.intro}</p>
      </div>
      {props.query.isLoading ? (
        <div aria-busy="true">
          <span className="sr-only">Loading…</span>
          <Skeleton className="h-16" />
        </div>
      ) : props.query.isError ? (
        <p role="alert" className="text-sm text-danger-text">
          Could not load your {props.what}. Reload to try again.
        </p>
      ) : props.count === 0 ? (
        <p className="rounded-md bg-surface-2 px-3 py-2 text-sm">
          <WithCode text={props.empty} />
        </p>
      ) : (
        <ul
          aria-label={props.title}
          className="flex flex-col divide-y divide-line rounded-lg border border-line bg-surface"
        >
          {props.children}
        </ul>
      )}
    </section>
  );
}

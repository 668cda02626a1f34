"use client";
import { ToggleGroup } from "radix-ui";
import type { ReactNode } from "react";
import { cn, focusRing } from "./cn";

export type Segment<T extends string> = { value: T; label: ReactNode; "aria-label"?: string };

/**
 * One choice out of a few, all visible (Radix ToggleGroup, type "single": role="radio" items in a
 * group, arrow keys move). Clicking the chosen segment again keeps it: there is always a choice.
 */
export function SegmentedControl<T extends string>(props: {
  "aria-label": string;
  value: T;
  onValueChange: (value: T) => void;
  segments: Segment<T>[];
  className?: string;
}) {
  return (
    <ToggleGroup.Root
      type="single"
      aria-label={props["aria-label"]}
      value={props.value}
      onValueChange={(v) => {
        if (v) props.onValueChange(v as T);
      }}
      className={cn("inline-flex rounded-md border border-line-strong bg-surface-2 p-0.5", props.className)}
    >
      {props.segments.map((s) => (
        <ToggleGroup.Item
          key={s.value}
          value={s.value}
          aria-label={s["aria-label"]}
          className={cn(
            "inline-flex h-7 cursor-pointer items-center gap-1.5 rounded-[5px] px-3 text-sm font-medium text-muted",
            "hover:text-fg data-[state=on]:bg-surface data-[state=on]:text-fg data-[state=on]:shadow-sm [&_svg]:size-4",
            focusRing,
          )}
        >
          {s.label}
        </ToggleGroup.Item>
      ))}
    </ToggleGroup.Root>
  );
}

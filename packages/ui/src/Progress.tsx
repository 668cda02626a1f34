"use client";
import { Progress as ProgressPrimitive } from "radix-ui";
import type { ComponentProps } from "react";
import { cn } from "./cn";

/**
 * How far something has gone (Radix Progress: role="progressbar" with aria-valuenow). `label` names
 * it for assistive tech; `value` null means the amount is not known yet (indeterminate).
 */
export function Progress({
  value,
  label,
  className,
  ...props
}: Omit<ComponentProps<typeof ProgressPrimitive.Root>, "value" | "max"> & { value: number | null; label: string }) {
  const shown = value === null ? null : Math.max(0, Math.min(100, value));
  return (
    <ProgressPrimitive.Root
      aria-label={label}
      value={shown}
      max={100}
      className={cn("relative h-1.5 w-full overflow-hidden rounded-full bg-surface-2", className)}
      {...props}
    >
      <ProgressPrimitive.Indicator
        className={cn(
          "h-full bg-accent transition-[width] motion-reduce:transition-none",
          shown === null && "w-1/3 animate-pulse motion-reduce:animate-none",
        )}
        style={shown === null ? undefined : { width: `${shown}%` }}
      />
    </ProgressPrimitive.Root>
  );
}

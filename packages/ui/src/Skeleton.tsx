import type { ComponentProps } from "react";
import { cn } from "./cn";

/** A placeholder block while data loads; hidden from assistive tech (say "Loading…" with aria-busy nearby). */
export function Skeleton({ className, ...props }: ComponentProps<"div">) {
  return (
    <div
      aria-hidden
      className={cn("animate-pulse rounded-md bg-surface-2 motion-reduce:animate-none", className)}
      {...props}
    />
  );
}

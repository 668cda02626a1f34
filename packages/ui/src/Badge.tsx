import { cva, type VariantProps } from "class-variance-authority";
import type { ComponentProps } from "react";
import { cn } from "./cn";

export const badgeVariants = cva(
  "inline-flex h-5 min-w-5 shrink-0 items-center justify-center gap-1 rounded-full px-1.5 text-xs font-semibold tabular-nums",
  {
    variants: {
      variant: {
        /** Unread count. */
        count: "bg-accent text-accent-fg",
        /** Mentions of the reader: the loudest. */
        mention: "bg-danger text-danger-fg",
        neutral: "border border-line bg-surface-2 text-muted font-medium",
      },
    },
    defaultVariants: { variant: "neutral" },
  },
);

export type BadgeProps = ComponentProps<"span"> & VariantProps<typeof badgeVariants>;

/** A small label or count; give it words ("3 unread") where the number alone would be ambiguous. */
export function Badge({ className, variant, ...props }: BadgeProps) {
  return <span className={cn(badgeVariants({ variant }), className)} {...props} />;
}

"use client";
import { Check } from "lucide-react";
import { Checkbox as CheckboxPrimitive, Switch as SwitchPrimitive } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { useId } from "react";
import { cn, focusRing } from "./cn";

type LabelledProps = { label: ReactNode; className?: string };

/** A checkbox with its label beside it (Radix Checkbox: role="checkbox", Space toggles). */
export function Checkbox({
  label,
  className,
  id,
  ...props
}: ComponentProps<typeof CheckboxPrimitive.Root> & LabelledProps) {
  const generated = useId();
  const controlId = id ?? generated;
  return (
    <div className={cn("inline-flex items-center gap-2", className)}>
      <CheckboxPrimitive.Root
        id={controlId}
        className={cn(
          "grid size-4 shrink-0 cursor-pointer place-items-center rounded border border-line-strong bg-surface",
          "data-[state=checked]:border-accent data-[state=checked]:bg-accent data-[state=checked]:text-accent-fg",
          "disabled:cursor-not-allowed disabled:opacity-50",
          focusRing,
        )}
        {...props}
      >
        <CheckboxPrimitive.Indicator>
          <Check className="size-3.5" strokeWidth={3} aria-hidden />
        </CheckboxPrimitive.Indicator>
      </CheckboxPrimitive.Root>
      <label htmlFor={controlId} className="cursor-pointer text-sm text-fg">
        {label}
      </label>
    </div>
  );
}

/** An on/off switch (Radix Switch: role="switch", aria-checked); `label` is shown, aria-label may say more. */
export function Switch({
  label,
  className,
  id,
  ...props
}: ComponentProps<typeof SwitchPrimitive.Root> & LabelledProps) {
  const generated = useId();
  const controlId = id ?? generated;
  return (
    <div className={cn("inline-flex items-center gap-2", className)}>
      <SwitchPrimitive.Root
        id={controlId}
        className={cn(
          "relative inline-flex h-5 w-9 shrink-0 cursor-pointer items-center rounded-full border border-line-strong bg-surface-2 transition-colors",
          "data-[state=checked]:border-accent data-[state=checked]:bg-accent disabled:cursor-not-allowed disabled:opacity-50",
          focusRing,
        )}
        {...props}
      >
        <SwitchPrimitive.Thumb
          className={cn(
            "block size-3.5 translate-x-0.5 rounded-full bg-muted shadow transition-transform",
            "data-[state=checked]:translate-x-[1.1rem] data-[state=checked]:bg-accent-fg",
          )}
        />
      </SwitchPrimitive.Root>
      <label htmlFor={controlId} className="cursor-pointer text-sm text-fg">
        {label}
      </label>
    </div>
  );
}

"use client";
import { RadioGroup as RadioGroupPrimitive } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { useId } from "react";
import { cn, focusRing } from "./cn";

export type RadioOption = { value: string; label: ReactNode; hint?: ReactNode };

/**
 * A labelled set of choices (Radix RadioGroup: role="radiogroup", arrow keys move, one tab stop),
 * each with an optional line of help read with it.
 */
export function RadioGroup({
  label,
  options,
  className,
  ...props
}: Omit<ComponentProps<typeof RadioGroupPrimitive.Root>, "children"> & {
  label: string;
  options: RadioOption[];
}) {
  const base = useId();
  return (
    <RadioGroupPrimitive.Root aria-label={label} className={cn("flex flex-col gap-2", className)} {...props}>
      {options.map((o) => {
        const id = `${base}-${o.value}`;
        return (
          <div key={o.value} className="flex items-start gap-2">
            <RadioGroupPrimitive.Item
              id={id}
              value={o.value}
              aria-describedby={o.hint ? `${id}-hint` : undefined}
              className={cn(
                "mt-0.5 grid size-4 shrink-0 cursor-pointer place-items-center rounded-full border border-line-strong bg-surface",
                "data-[state=checked]:border-accent disabled:cursor-not-allowed disabled:opacity-50",
                focusRing,
              )}
            >
              <RadioGroupPrimitive.Indicator className="block size-2 rounded-full bg-accent" />
            </RadioGroupPrimitive.Item>
            <div className="flex flex-col">
              <label htmlFor={id} className="cursor-pointer text-sm font-medium text-fg">
                {o.label}
              </label>
              {o.hint ? (
                <span id={`${id}-hint`} className="text-xs text-muted">
                  {o.hint}
                </span>
              ) : null}
            </div>
          </div>
        );
      })}
    </RadioGroupPrimitive.Root>
  );
}

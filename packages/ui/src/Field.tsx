"use client";
import type { ComponentProps, ReactNode } from "react";
import { useId } from "react";
import { cn, focusRing } from "./cn";

/** Shared look of text-like controls: a 3:1 border (WCAG 1.4.11), the danger border when invalid. */
export const controlClass = cn(
  "w-full rounded-md border border-line-strong bg-surface px-3 text-sm text-fg placeholder:text-muted",
  "disabled:cursor-not-allowed disabled:opacity-50 aria-[invalid=true]:border-danger",
  focusRing,
  "focus-visible:outline-offset-0",
);

type FieldProps = {
  /** The visible label (or, with hideLabel, the screen-reader-only one). */
  label: ReactNode;
  hideLabel?: boolean;
  /** Help shown under the control and read with it. */
  hint?: ReactNode;
  /** An error shown under the control, read with it, and marking the control invalid. */
  error?: ReactNode;
  className?: string;
};

/** Ids and wiring of a label, a hint and an error around one control (aria-describedby, aria-invalid). */
function useField(id: string | undefined, hint: ReactNode, error: ReactNode, describedBy: string | undefined) {
  const generated = useId();
  const controlId = id ?? generated;
  const hintId = hint ? `${controlId}-hint` : undefined;
  const errorId = error ? `${controlId}-error` : undefined;
  const describedByAll = [describedBy, hintId, errorId].filter(Boolean).join(" ") || undefined;
  return { controlId, hintId, errorId, describedBy: describedByAll };
}

function FieldFrame(props: FieldProps & { controlId: string; hintId?: string; errorId?: string; children: ReactNode }) {
  return (
    <div className={cn("flex flex-col gap-1.5", props.className)}>
      <label htmlFor={props.controlId} className={cn("text-sm font-medium text-fg", props.hideLabel && "sr-only")}>
        {props.label}
      </label>
      {props.children}
      {props.hint ? (
        <p id={props.hintId} className="text-xs text-muted">
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p id={props.errorId} role="alert" className="text-sm text-danger-text">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export type InputProps = Omit<ComponentProps<"input">, "className"> & FieldProps & { inputClassName?: string };

export function Input({ label, hideLabel, hint, error, className, inputClassName, id, ...props }: InputProps) {
  const f = useField(id, hint, error, props["aria-describedby"]);
  return (
    <FieldFrame
      {...{ label, hideLabel, hint, error, className }}
      controlId={f.controlId}
      hintId={f.hintId}
      errorId={f.errorId}
    >
      <input
        {...props}
        id={f.controlId}
        aria-describedby={f.describedBy}
        aria-invalid={error ? true : props["aria-invalid"]}
        className={cn(controlClass, "h-9", inputClassName)}
      />
    </FieldFrame>
  );
}

export type TextareaProps = Omit<ComponentProps<"textarea">, "className"> & FieldProps & { textareaClassName?: string };

export function Textarea({ label, hideLabel, hint, error, className, textareaClassName, id, ...props }: TextareaProps) {
  const f = useField(id, hint, error, props["aria-describedby"]);
  return (
    <FieldFrame
      {...{ label, hideLabel, hint, error, className }}
      controlId={f.controlId}
      hintId={f.hintId}
      errorId={f.errorId}
    >
      <textarea
        {...props}
        id={f.controlId}
        aria-describedby={f.describedBy}
        aria-invalid={error ? true : props["aria-invalid"]}
        className={cn(controlClass, "min-h-10 resize-y py-2 leading-snug", textareaClassName)}
      />
    </FieldFrame>
  );
}

export type SelectProps = Omit<ComponentProps<"select">, "className"> & FieldProps & { selectClassName?: string };

/**
 * A native select, styled: it keeps the platform's picker (phones, screen readers) and works with
 * any form tooling; a custom listbox is only worth it where options need more than text.
 */
export function Select({
  label,
  hideLabel,
  hint,
  error,
  className,
  selectClassName,
  id,
  children,
  ...props
}: SelectProps) {
  const f = useField(id, hint, error, props["aria-describedby"]);
  return (
    <FieldFrame
      {...{ label, hideLabel, hint, error, className }}
      controlId={f.controlId}
      hintId={f.hintId}
      errorId={f.errorId}
    >
      <select
        {...props}
        id={f.controlId}
        aria-describedby={f.describedBy}
        aria-invalid={error ? true : props["aria-invalid"]}
        className={cn(controlClass, "h-9 cursor-pointer pr-8", selectClassName)}
      >
        {children}
      </select>
    </FieldFrame>
  );
}

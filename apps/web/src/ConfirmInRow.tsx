"use client";
import { Button } from "@maity/ui";
import type { ReactNode } from "react";

/**
 * A confirmation inside a list row (sign a computer out, revoke an invite, remove a member, start a
 * session fresh): the question, a refusal in words, the confirming button and Keep; Escape keeps.
 * The confirming button is never disabled — a button disabling itself under the focus drops it out
 * of the row (Escape too) — it says it is busy (aria-disabled) and ignores presses meanwhile.
 */
export function ConfirmInRow(props: {
  /** What a screen reader hears the group is ("Confirm signing out laptop"). */
  legend: string;
  question: ReactNode;
  error: string | null;
  confirm: string;
  keep?: string;
  variant?: "danger" | "primary";
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** Extra classes for both buttons (a section's own focus ring). */
  buttonClassName?: string;
}) {
  return (
    <fieldset
      className="flex flex-col gap-2 rounded-md bg-surface-2 p-3"
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onCancel();
      }}
    >
      <legend className="sr-only">{props.legend}</legend>
      <p className="text-sm">{props.question}</p>
      {props.error ? (
        <p role="alert" className="text-sm text-danger-text">
          {props.error}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          variant={props.variant ?? "danger"}
          size="sm"
          className={props.buttonClassName}
          aria-disabled={props.pending}
          onClick={() => {
            if (!props.pending) props.onConfirm();
          }}
        >
          {props.confirm}
        </Button>
        <Button size="sm" className={props.buttonClassName} onClick={props.onCancel}>
          {props.keep ?? "Keep"}
        </Button>
      </div>
    </fieldset>
  );
}

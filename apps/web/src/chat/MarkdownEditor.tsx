"use client";
import { SegmentedControl, Textarea } from "@maity/ui";
import { useState } from "react";
import { timeLabel } from "../format";
import { Markdown } from "../Markdown";
import { type Named, nameOf } from "../wording/chatView";

// Writing Markdown that agents will read (the brief, notes): a Write / Preview switch, and who
// wrote a version when.

/** Markdown with a Write / Preview switch: what agents will read, before it is saved. */
export function MarkdownEditor(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string | undefined;
  rows?: number;
}) {
  const [mode, setMode] = useState<"write" | "preview">("write");
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{props.label}</span>
        <SegmentedControl
          aria-label={`${props.label}: write or preview`}
          value={mode}
          onValueChange={setMode}
          segments={[
            { value: "write", label: "Write" },
            { value: "preview", label: "Preview" },
          ]}
        />
      </div>
      {mode === "write" ? (
        <Textarea
          label={props.label}
          hideLabel
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          rows={props.rows ?? 8}
          hint="Markdown: # headings, **bold**, lists, `code`, [links](https://…)"
          error={props.error}
          textareaClassName="font-mono text-xs"
        />
      ) : (
        <section
          className="min-h-24 rounded-md border border-line bg-surface-2 p-3"
          aria-label={`${props.label} preview`}
        >
          {props.value.trim() ? <Markdown text={props.value} /> : <p className="text-sm text-muted">Nothing yet.</p>}
        </section>
      )}
    </div>
  );
}

/** Who and when a version was written, in names. */
export function Written(props: {
  by: string | null;
  at: string | null;
  version: number;
  people: ReadonlyMap<string, Named>;
}) {
  if (!props.by || !props.at) return <span className="text-xs text-muted">version {props.version}</span>;
  return (
    <span className="text-xs text-muted">
      version {props.version} · {nameOf(props.by, props.people)}, {timeLabel(props.at)}
    </span>
  );
}

"use client";
import { Button, cn, useToast } from "@maity/ui";
import { Copy } from "lucide-react";
import { useRef } from "react";
import { timeLabel } from "./format";
import { pairCommand } from "./wording/house";

/**
 * A pairing code and the command that redeems it (agent protocol §2), with a copy button: the
 * command names this hub's origin, so it works as typed where the agent runs (DESIGN §4c).
 */
export function PairingCode(props: { name: string; code: string; expiresAt: string }) {
  const { toast } = useToast();
  const commandRef = useRef<HTMLElement>(null);
  // Shown only after a click, so the page is in a browser by then.
  const command = pairCommand(props.code, typeof window === "undefined" ? "" : window.location.origin);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      toast({ title: "Command copied", description: command });
    } catch {
      // No clipboard (an insecure origin, a refusal): select it, so a keyboard copy takes it.
      const range = document.createRange();
      if (commandRef.current) range.selectNodeContents(commandRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      toast({ variant: "danger", title: "Could not copy: the command is selected, copy it yourself" });
    }
  };
  return (
    <div role="status" className="flex flex-col gap-2 rounded-md bg-surface-2 px-3 py-3 text-sm">
      <p>
        Pairing code for <strong className="break-all">{props.name}</strong>:{" "}
        <code className="rounded bg-surface px-1.5 py-0.5 font-mono text-base font-semibold tracking-wider">
          {props.code}
        </code>
        <span className="text-muted"> · works once, until {timeLabel(props.expiresAt)}</span>
      </p>
      <p>Run this where the agent runs:</p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          ref={commandRef}
          className={cn(
            "w-full min-w-0 rounded-md border border-line bg-surface px-3 py-2 font-mono text-xs break-words",
            "sm:w-auto sm:flex-1",
          )}
        >
          {command}
        </code>
        <Button size="sm" onClick={() => void copy()} aria-label={`Copy the pairing command for ${props.name}`}>
          <Copy aria-hidden />
          Copy
        </Button>
      </div>
      <p className="text-xs text-muted">Pairing gives that client a fresh token and retires the agent's others.</p>
    </div>
  );
}

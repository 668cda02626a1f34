"use client";
import type { Reaction } from "@maity/domain";
import type { Named } from "../wording/chatView";
import { COMMON_REACTIONS, peopleWords } from "../wording/mediaView";
import { cn, IconButton, Tooltip, useToast } from "@maity/ui";
import { X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { hubErrorOf, useTRPCClient } from "../trpc";
import { type ChatRef, setReaction } from "./mediaApi";

/** Toggles the reader's reaction and hands the hub's answer (the message's reactions) back. */
function useReact(ref: ChatRef, seq: number, onReactions: (r: Reaction[]) => void) {
  const client = useTRPCClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const react = async (emoji: string, on: boolean) => {
    setBusy(true);
    try {
      onReactions(await setReaction(client, ref, seq, emoji, on));
    } catch (e) {
      toast.toast({
        title: on ? "Could not add the reaction" : "Could not take the reaction back",
        description: hubErrorOf(e)?.message ?? "The hub did not answer.",
        variant: "danger",
      });
    } finally {
      setBusy(false);
    }
  };
  return { react, busy };
}

/**
 * A message's reactions: a chip per emoji with its count, pressed when the reader is one
 * of them, the names in a tooltip; a click toggles. `picking` shows the "Add reaction" picker.
 */
export function Reactions(props: {
  reactions: Reaction[];
  conversationRef: ChatRef;
  seq: number;
  people: Map<string, Named>;
  me: string;
  canReact: boolean;
  picking: boolean;
  onPicked: () => void;
  onReactions: (r: Reaction[]) => void;
}) {
  const { react, busy } = useReact(props.conversationRef, props.seq, props.onReactions);
  if (!props.reactions.length && !props.picking) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-1.5">
      {props.reactions.length ? (
        <ul className="flex flex-wrap gap-1.5" aria-label="Reactions">
          {props.reactions.map((r) => {
            const who = peopleWords(r.members, props.people, props.me);
            return (
              <li key={r.emoji}>
                <Tooltip content={`${who} reacted with ${r.emoji}`}>
                  <button
                    type="button"
                    aria-pressed={r.mine}
                    disabled={!props.canReact || busy}
                    aria-label={`${r.emoji} ${r.count}: ${who}${props.canReact ? (r.mine ? ". Take yours back" : ". React too") : ""}`}
                    onClick={() => void react(r.emoji, !r.mine)}
                    className={cn(
                      "inline-flex h-7 items-center gap-1 rounded-full border px-2 text-sm tabular-nums",
                      "cursor-pointer disabled:cursor-default",
                      r.mine ? "border-accent bg-accent-soft" : "border-line-strong bg-surface hover:bg-surface-2",
                    )}
                  >
                    <span aria-hidden>{r.emoji}</span>
                    <span aria-hidden>{r.count}</span>
                  </button>
                </Tooltip>
              </li>
            );
          })}
        </ul>
      ) : null}
      {props.picking && props.canReact ? (
        <EmojiPicker
          onPick={(emoji) => {
            props.onPicked();
            if (!props.reactions.some((r) => r.emoji === emoji && r.mine)) void react(emoji, true);
          }}
          onClose={props.onPicked}
        />
      ) : null}
    </div>
  );
}

/** The small picker of common emoji: a toolbar (←/→ move, Esc closes), focused when it opens. */
function EmojiPicker(props: { onPick: (emoji: string) => void; onClose: () => void }) {
  const first = useRef<HTMLButtonElement | null>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <div
      role="toolbar"
      aria-label="Add reaction"
      className="inline-flex items-center gap-0.5 rounded-full border border-line-strong bg-surface px-1 shadow-sm"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          props.onClose();
          return;
        }
        if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
        const buttons = [...e.currentTarget.querySelectorAll("button")];
        const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
        const next = buttons[(at + (e.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length];
        next?.focus();
        e.preventDefault();
      }}
    >
      {COMMON_REACTIONS.map((emoji, i) => (
        <button
          key={emoji}
          ref={i === 0 ? first : undefined}
          type="button"
          aria-label={`React with ${emoji}`}
          className="size-8 cursor-pointer rounded-full text-base hover:bg-surface-2"
          onClick={() => props.onPick(emoji)}
        >
          {emoji}
        </button>
      ))}
      <IconButton aria-label="Close the emoji picker" size="icon-sm" icon={<X aria-hidden />} onClick={props.onClose} />
    </div>
  );
}

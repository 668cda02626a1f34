"use client";
import {
  insertMention,
  type MentionCandidate,
  type Message,
  mentionQuery,
  shouldSendTyping,
  suggestMentions,
} from "@maity/domain";
import { Button, cn, IconButton, Switch, Textarea, useToast } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CornerUpLeft, Paperclip, SendHorizontal, X } from "lucide-react";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";

export type ReplyTarget = { seq: number; author: string; excerpt: string };

export function Composer(props: {
  conversationRef: { owner: string; slug: string; conversation_id: string };
  closed: boolean;
  observer: boolean;
  archived: boolean;
  lead: boolean;
  human: boolean;
  me: string;
  candidates: MentionCandidate[];
  replyTo: ReplyTarget | null;
  onCancelReply: () => void;
  onPosted: (m: Message) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [body, setBody] = useState("");
  const [caret, setCaret] = useState(0);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const { onCancelReply } = props;
  const post = useMutation(
    trpc.messages.post.mutationOptions({
      onSuccess: (m) => {
        setBody("");
        setCaret(0);
        onCancelReply();
        props.onPosted(m.message);
      },
    }),
  );
  // Issue 15: the others see "… is writing" — at most once every 3 s while typing, never for an empty body.
  const typing = useMutation(trpc.messages.typing.mutationOptions());
  const lastTyping = useRef<number | null>(null);
  // The switch shows the choice at once; the hub's answer (the view's meat_proxy_lead) follows.
  const [lead, setLead] = useState(props.lead);
  useEffect(() => setLead(props.lead), [props.lead]);
  const meat = useMutation(
    trpc.conversations.setMeatProxy.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() }),
      onError: () => setLead(props.lead),
    }),
  );
  const toast = useToast();
  // Replying puts the caret in the composer.
  const replySeq = props.replyTo?.seq;
  useEffect(() => {
    if (replySeq !== undefined) textarea.current?.focus();
  }, [replySeq]);

  // `@` autocompletion over the chat's participants (domain mentionQuery / suggestMentions).
  const listboxId = useId();
  const [active, setActive] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const mention = mentionQuery(body, caret);
  const suggestions = mention ? suggestMentions(mention.query, props.candidates, props.me) : [];
  const open = mention !== null && suggestions.length > 0 && dismissedAt !== mention.start;
  const activeIndex = Math.min(active, suggestions.length - 1);
  const pick = (c: MentionCandidate) => {
    if (!mention) return;
    const next = insertMention(body, caret, mention.start, c.handle);
    setBody(next.text);
    setCaret(next.caret);
    setActive(0);
    requestAnimationFrame(() => textarea.current?.setSelectionRange(next.caret, next.caret));
  };

  const note = "flex items-start gap-2 border-t border-line bg-surface px-4 py-3 text-sm";
  if (props.closed)
    return (
      <p className={note} role="status">
        This chat is closed: its last human left. You can read it; former human participants can still remove messages.
        Start a new group chat to talk again.
      </p>
    );
  if (props.observer)
    return (
      <p className={note} role="status">
        You read along as the owner of an agent in this chat: you cannot post, manage it or remove messages.
      </p>
    );
  const switchOn = lead;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (body.trim()) post.mutate({ ...props.conversationRef, body, reply_to: props.replyTo?.seq ?? null });
  };
  const error = hubErrorOf(post.error);
  const optionId = (i: number) => `${listboxId}-option-${i}`;
  return (
    <div className="shrink-0 border-t border-line bg-surface px-4 py-3 pb-[max(0.75rem,env(safe-area-inset-bottom))]">
      {props.archived ? (
        <p className="mb-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="status">
          This project is archived: you can still post, leave and remove messages; nobody new can be added.
        </p>
      ) : null}
      {props.replyTo ? (
        <div className="mb-2 flex items-center gap-2 rounded-md border-l-2 border-accent bg-surface-2 px-2 py-1 text-sm">
          <CornerUpLeft className="size-4 shrink-0 text-muted" aria-hidden />
          <p className="min-w-0 flex-1 truncate" role="status">
            Replying to <span className="font-medium">{props.replyTo.author}</span>: {props.replyTo.excerpt}
          </p>
          <IconButton aria-label="Cancel the reply" size="sm" icon={<X aria-hidden />} onClick={onCancelReply} />
        </div>
      ) : null}
      <form className="relative flex flex-col gap-2" onSubmit={submit} aria-label="Composer">
        {open ? (
          <div
            id={listboxId}
            role="listbox"
            aria-label="Mention someone"
            className="absolute bottom-full left-0 z-20 mb-1 max-h-64 w-72 max-w-full overflow-y-auto rounded-md border border-line bg-surface p-1 shadow-lg"
          >
            {suggestions.map((c, i) => (
              <div
                key={c.member_id}
                id={optionId(i)}
                role="option"
                tabIndex={-1}
                aria-selected={i === activeIndex}
                className={cn(
                  "flex cursor-pointer items-baseline gap-2 rounded-sm px-2 py-1.5 text-sm",
                  i === activeIndex && "bg-surface-2",
                )}
                // Keep the caret in the textarea: pick on mousedown, before it would blur.
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(c);
                }}
              >
                <span className="font-medium">@{c.handle}</span>
                <span className="truncate text-muted">
                  {c.name !== c.handle ? c.name : ""} {c.kind === "agent" ? "(agent)" : ""}
                </span>
              </div>
            ))}
          </div>
        ) : null}
        <Textarea
          ref={textarea}
          label="Message"
          hideLabel
          placeholder="Write a message… (Enter sends, Shift+Enter for a new line, @ to mention)"
          value={body}
          rows={2}
          // A textarea takes no role (ARIA in HTML), so not role=combobox: a textbox that owns the
          // listbox through aria-controls and aria-activedescendant, as screen readers follow it.
          aria-autocomplete="list"
          aria-controls={open ? listboxId : undefined}
          aria-activedescendant={open ? optionId(activeIndex) : undefined}
          onChange={(e) => {
            const text = e.target.value;
            setBody(text);
            setCaret(e.target.selectionStart ?? text.length);
            const now = Date.now();
            if (props.human && shouldSendTyping(text, now, lastTyping.current)) {
              lastTyping.current = now;
              typing.mutate(props.conversationRef);
            }
          }}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
          onKeyDown={(e) => {
            if (open) {
              if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                e.preventDefault();
                const step = e.key === "ArrowDown" ? 1 : -1;
                setActive((activeIndex + step + suggestions.length) % suggestions.length);
                return;
              }
              if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
                e.preventDefault();
                const chosen = suggestions[activeIndex];
                if (chosen) pick(chosen);
                return;
              }
              if (e.key === "Escape") {
                e.preventDefault();
                setDismissedAt(mention?.start ?? null);
                return;
              }
            }
            if (e.key === "Escape" && props.replyTo) {
              e.preventDefault();
              onCancelReply();
              return;
            }
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
          error={
            error ? (error.details.fields?.body ? `Message: ${error.details.fields.body}` : error.message) : undefined
          }
        />
        <div className="flex flex-wrap items-center gap-2">
          <Button
            variant="ghost"
            size="sm"
            // Honest until attachments exist: it says so rather than opening a picker that leads nowhere.
            onClick={() =>
              toast.toast({
                title: "Attachments are not available yet",
                description: "They come with a later version of the hub.",
              })
            }
          >
            <Paperclip aria-hidden />
            Attach
          </Button>
          {props.human ? (
            <Switch
              label="Meat proxy"
              aria-label="Meat proxy (lead)"
              checked={switchOn}
              onCheckedChange={(checked) => {
                setLead(checked);
                meat.mutate({ ...props.conversationRef, meat_proxy: checked });
              }}
            />
          ) : null}
          <Button
            type="submit"
            variant="primary"
            size="sm"
            className="ml-auto"
            disabled={post.isPending || !body.trim()}
          >
            <SendHorizontal aria-hidden />
            Send
          </Button>
        </div>
      </form>
    </div>
  );
}

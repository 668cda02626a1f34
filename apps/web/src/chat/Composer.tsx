"use client";
import type { Message } from "@maity/domain";
import {
  insertMention,
  type MentionCandidate,
  mentionQuery,
  shouldSendTyping,
  suggestMentions,
} from "../wording/chatView";
import { sizeWords } from "../wording/mediaView";
import { Button, cn, IconButton, Progress, Switch, Textarea } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { CornerUpLeft, FileText, Paperclip, SendHorizontal, X } from "lucide-react";
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from "react";
import { hubErrorOf, useTRPC, useTRPCClient } from "../trpc";
import { postWithAttachments } from "./mediaApi";
import { PollDialog } from "./PollDialog";
import { ACCEPT, type PendingFile, useUploads } from "./upload";

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
  /** Files dropped anywhere on the chat come here. */
  dropTarget?: RefObject<((files: File[]) => void) | null>;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const uploads = useUploads(props.conversationRef.owner, props.conversationRef.slug);
  const picker = useRef<HTMLInputElement | null>(null);
  const { dropTarget } = props;
  // Drops are taken only where one may write (not a closed chat, not an observer's).
  const writable = !props.closed && !props.observer;
  useEffect(() => {
    if (!dropTarget || !writable) return;
    dropTarget.current = uploads.add;
    return () => {
      dropTarget.current = null;
    };
  }, [dropTarget, uploads.add, writable]);
  const queryClient = useQueryClient();
  const [body, setBody] = useState("");
  const [caret, setCaret] = useState(0);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const { onCancelReply } = props;
  // With files attached the post carries their ids (in the order shown) and may have no text.
  const post = useMutation({
    mutationFn: (input: { body: string; reply_to: number | null; attachments: string[] }) =>
      input.attachments.length
        ? postWithAttachments(client, { ...props.conversationRef, ...input })
        : client.messages.post.mutate({ ...props.conversationRef, body: input.body, reply_to: input.reply_to }),
    onSuccess: (m) => {
      setBody("");
      setCaret(0);
      uploads.clear();
      onCancelReply();
      props.onPosted(m.message);
    },
  });
  // The others see "… is writing" — at most once every 3 s while typing, never for an empty body.
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
  // Send waits for every upload; a failed one must be removed first (what you see is what is sent).
  const canSend =
    !post.isPending && !uploads.uploading && !uploads.failed && (body.trim() !== "" || uploads.ids.length > 0);
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!canSend) return;
    post.mutate({ body, reply_to: props.replyTo?.seq ?? null, attachments: uploads.ids });
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
      {uploads.files.length ? (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label="Files to send">
          {uploads.files.map((f) => (
            <FileChip key={f.key} file={f} onRemove={() => uploads.remove(f.key)} />
          ))}
        </ul>
      ) : null}
      {uploads.refusals.length ? (
        <div role="alert" className="mb-2 flex items-start gap-2 text-sm text-danger-text">
          <ul className="flex-1">
            {uploads.refusals.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
          <IconButton aria-label="Dismiss" size="icon-sm" icon={<X aria-hidden />} onClick={uploads.dismissRefusals} />
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
          onPaste={(e) => {
            // A pasted image (a screenshot) is attached; pasted text stays text.
            const images = [...e.clipboardData.files].filter((f) => f.type.startsWith("image/"));
            if (!images.length) return;
            e.preventDefault();
            uploads.add(images.map((f, i) => (f.name && f.name !== "image.png" ? f : renamePasted(f, i))));
          }}
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
          <input
            ref={picker}
            type="file"
            multiple
            accept={ACCEPT}
            className="sr-only"
            tabIndex={-1}
            aria-hidden
            aria-label="Attach files"
            onChange={(e) => {
              uploads.add([...(e.target.files ?? [])]);
              e.target.value = "";
            }}
          />
          <Button variant="ghost" size="sm" onClick={() => picker.current?.click()}>
            <Paperclip aria-hidden />
            Attach
          </Button>
          {props.human ? (
            <PollDialog conversationRef={props.conversationRef} disabled={false} onCreated={(m) => props.onPosted(m)} />
          ) : null}
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
          {uploads.failed ? (
            <span className="ml-auto text-xs text-danger-text" role="status">
              Remove the file that could not be uploaded to send.
            </span>
          ) : null}
          <Button type="submit" variant="primary" size="sm" className="ml-auto" disabled={!canSend}>
            <SendHorizontal aria-hidden />
            {uploads.uploading ? "Uploading…" : "Send"}
          </Button>
        </div>
      </form>
    </div>
  );
}

/** A pasted screenshot comes as "image.png": named by the time, so several in one message differ. */
function renamePasted(f: File, i: number): File {
  const ext = f.type.split("/")[1]?.replace("jpeg", "jpg") ?? "png";
  const stamp = new Date().toISOString().slice(0, 19).replace(/[T:]/gu, "-");
  return new File([f], `pasted-${stamp}${i ? `-${i + 1}` : ""}.${ext}`, { type: f.type });
}

/** One file waiting to be sent: thumbnail or icon, name and size, progress, its error, Remove. */
function FileChip(props: { file: PendingFile; onRemove: () => void }) {
  const f = props.file;
  return (
    <li
      className={cn(
        "flex w-56 items-center gap-2 rounded-md border bg-surface-2 p-1.5",
        f.state === "failed" ? "border-danger" : "border-line",
      )}
    >
      {f.preview ? (
        // biome-ignore lint/performance/noImgElement: a local object URL of the picked file
        <img src={f.preview} alt="" className="size-10 shrink-0 rounded-sm object-cover" />
      ) : (
        <FileText className="size-8 shrink-0 text-muted" aria-hidden />
      )}
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <span className="truncate text-xs font-medium" title={f.name}>
          {f.name}
        </span>
        {f.state === "uploading" ? (
          <Progress value={f.progress} label={`Uploading ${f.name}`} />
        ) : f.state === "failed" ? (
          <span role="alert" className="text-xs text-danger-text">
            {f.error}
          </span>
        ) : (
          <span className="text-xs text-muted">{sizeWords(f.answer?.size ?? f.size)} · ready</span>
        )}
      </div>
      <IconButton aria-label={`Remove ${f.name}`} size="icon-sm" icon={<X aria-hidden />} onClick={props.onRemove} />
    </li>
  );
}

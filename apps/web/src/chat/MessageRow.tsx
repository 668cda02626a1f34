"use client";
import { cardPayloadSchemas, type Message, type MessageRouting, type SendableCardType } from "@maity/domain";
import { type Named, nameOf, replyExcerpt, routingChips } from "../wording/chatView";
import {
  Avatar,
  Badge,
  Button,
  cn,
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
  Input,
} from "@maity/ui";
import { useMutation } from "@tanstack/react-query";
import { Gavel, CornerUpLeft, House, Link2, MoreHorizontal, NotebookPen, SmilePlus, Trash2 } from "lucide-react";
import { memo, useState } from "react";
import { timeLabel, withMentions } from "../format";
import { decisionCardPayload } from "../wording/decisions";
import { hubErrorOf, useTRPC } from "../trpc";
import { Attachments } from "./Attachments";
import { CalendarCard, EmailCard } from "./Cards";
import { DecisionCard } from "./DecisionCard";
import { PollCard } from "./PollCard";
import { Reactions } from "./Reactions";

/** Routing made visible: under a message, the agents the hub asked to answer and why (004 §4). */
function RoutingLine(props: { agents: MessageRouting["agents"]; people: Map<string, Named>; managers: string }) {
  const chips = routingChips(props.agents, props.people);
  if (!chips.asked.length && !chips.heldByCap.length) return null;
  return (
    <fieldset className="mt-1 flex flex-wrap items-center gap-1.5 border-0 p-0 text-xs" aria-label="Routing">
      {chips.asked.map((a) => (
        <span
          key={a.agentId}
          className="inline-flex items-center gap-1 rounded-full border border-line bg-surface px-2 py-0.5"
          title={`Asked to answer: ${a.why}`}
        >
          <span aria-hidden>→</span> {a.name} <span className="text-muted">({a.why})</span>
        </span>
      ))}
      {chips.heldByCap.length ? (
        <span className="text-muted" role="note">
          Round cap reached: {chips.heldByCap.join(", ")} will not answer until a person writes; {props.managers} or a
          project admin can raise it in Manage.
        </span>
      ) : null}
    </fieldset>
  );
}

/** The quote above a reply: who and what it answers; a click goes to it (loading history if needed). */
function Quote(props: {
  seq: number;
  original: Message | undefined;
  people: Map<string, Named>;
  onJump: (seq: number) => void;
}) {
  const { original } = props;
  return (
    <button
      type="button"
      className="mb-0.5 flex max-w-full items-center gap-1.5 self-start rounded-sm border-l-2 border-accent bg-surface-2 px-2 py-0.5 text-left text-xs text-muted hover:text-fg"
      onClick={() => props.onJump(props.seq)}
    >
      <CornerUpLeft className="size-3 shrink-0" aria-hidden />
      {original ? (
        <span className="truncate">
          <span className="font-medium text-fg">{nameOf(original.from, props.people)}</span>:{" "}
          {replyExcerpt(original.body)}
        </span>
      ) : (
        <span>Reply to an earlier message — show it</span>
      )}
    </button>
  );
}

export type RowActions = {
  onRedacted: (m: Message) => void;
  onReply: (m: Message) => void;
  onCopyLink: (seq: number) => void;
  onJump: (seq: number) => void;
  /** A vote or a reaction changed this message (the hub's answer, merged by seq). */
  onChanged: (m: Message) => void;
};

/**
 * One message. Memoised, so long chats stay smooth: a live line or a loaded page re-renders only the
 * rows whose props changed — the parent keeps people, routing, actions and quotes stable.
 */
export const MessageRow = memo(function MessageRow(props: {
  message: Message;
  first: boolean;
  people: Map<string, Named>;
  routing: MessageRouting["agents"] | undefined;
  managers: string;
  conversationRef: { owner: string; slug: string; conversation_id: string };
  canRedact: boolean;
  canReply: boolean;
  /** The reader manages this chat (may close anyone's poll, OQ-B-25). */
  manager: boolean;
  me: string;
  agent: boolean;
  highlighted: boolean;
  /** The message a search result or a link opened (DESIGN §4d): marked until the reader moves on. */
  jumped?: boolean;
  quoted: Message | undefined;
  actions: RowActions;
}) {
  const { message: m, actions } = props;
  const trpc = useTRPC();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const [picking, setPicking] = useState(false);
  const redact = useMutation(
    trpc.messages.redact.mutationOptions({
      onSuccess: (r) => {
        setAsking(false);
        actions.onRedacted(r);
      },
    }),
  );
  const anchor = `m-${m.seq}`;
  if (m.redacted) {
    return (
      <li
        id={anchor}
        data-seq={m.seq}
        className="scroll-mt-4 rounded-md border border-dashed border-line px-3 py-2 text-sm text-muted"
      >
        <em>
          Message removed by {m.redaction?.by ? nameOf(m.redaction.by, props.people) : "someone"} ·{" "}
          {timeLabel(m.redaction?.at ?? null)}
          {m.redaction?.reason ? ` — ${m.redaction.reason}` : ""}
        </em>
      </li>
    );
  }
  if (m.quiet) {
    // DESIGN §4b: what the hub itself says (an agent edited or opened a note; §4c a visitor was sent
    // home): a quiet system line, no avatar, no actions — it woke nobody and counts in no unread.
    return (
      <li id={anchor} data-seq={m.seq} data-quiet={m.quiet.type} className="my-0.5 flex scroll-mt-4 justify-center">
        <span className="inline-flex max-w-full items-center gap-1.5 rounded-full bg-surface-2 px-3 py-0.5 text-xs text-muted">
          {m.quiet.type === "visitor.sent_home" ? (
            <House className="size-3 shrink-0" aria-hidden />
          ) : m.quiet.type === "approval.decided" ? (
            <Gavel className="size-3 shrink-0" aria-hidden />
          ) : (
            <NotebookPen className="size-3 shrink-0" aria-hidden />
          )}
          <span className="truncate">{m.body}</span>
          <time dateTime={m.sent_at} title={new Date(m.sent_at).toLocaleString()}>
            · {timeLabel(m.sent_at)}
          </time>
        </span>
      </li>
    );
  }
  // v1.11/v1.12: the body of a card or poll message is the plain-text fallback, shown only where the
  // card cannot render — here it renders, so the fallback stays out of the way.
  const card = m.card ? cardPayloadSchemas[m.card.type as SendableCardType]?.safeParse(m.card.payload) : undefined;
  // Issue 30: a decision card (request_approval's) renders too; its body is the same kind of fallback.
  const decision = m.card?.type === "card.decision" ? decisionCardPayload.safeParse(m.card.payload) : undefined;
  const cardShown = Boolean(m.poll) || Boolean(card?.success) || Boolean(decision?.success);
  const mentionsMe = m.mentions.some((x) => x.member_id === props.me);
  const author = nameOf(m.from, props.people);
  const sent = new Date(m.sent_at);
  const clock = sent.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <li
      id={anchor}
      data-seq={m.seq}
      className={cn(
        "group relative flex scroll-mt-4 gap-3 rounded-md px-2 transition-[background-color,box-shadow] duration-700 hover:bg-surface-2 focus-within:bg-surface-2",
        props.first || m.reply_to ? "mt-1 py-1.5" : "py-0.5",
        mentionsMe && "border-l-4 border-danger bg-accent-soft/40",
        (props.highlighted || props.jumped) && "bg-warning-soft ring-2 ring-accent",
      )}
      data-highlighted={props.highlighted || undefined}
      data-jumped={props.jumped || undefined}
      aria-current={props.jumped ? "true" : undefined}
    >
      {props.first ? (
        <Avatar name={author} kind={props.agent ? "agent" : "human"} decorative className="mt-0.5" />
      ) : (
        // A run's later messages: the time shows on hover, the full date in its title.
        <time
          dateTime={m.sent_at}
          title={sent.toLocaleString()}
          className="w-9 shrink-0 pt-0.5 text-right text-[11px] text-muted opacity-0 group-hover:opacity-100"
        >
          {clock}
        </time>
      )}
      <div className="flex min-w-0 flex-1 flex-col gap-0.5">
        {props.first ? (
          <div className="flex items-baseline gap-2 text-sm">
            <span className="font-semibold">{author}</span>
            {props.agent ? <Badge variant="neutral">agent</Badge> : null}
            <time dateTime={m.sent_at} title={sent.toLocaleString()} className="text-xs text-muted">
              {clock}
            </time>
          </div>
        ) : (
          <span className="sr-only">{author}</span>
        )}
        {m.reply_to ? (
          <Quote seq={m.reply_to} original={props.quoted} people={props.people} onJump={actions.onJump} />
        ) : null}
        <div
          className="whitespace-pre-wrap text-sm leading-relaxed [overflow-wrap:anywhere]"
          hidden={cardShown || (!m.body && m.attachments.length > 0)}
        >
          {withMentions(m.body ?? "", m.mentions).map((part, i) =>
            part.mention ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
              <mark key={i} className="rounded-sm bg-accent-soft px-0.5 font-medium text-fg">
                {part.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one immutable body
              <span key={i}>{part.text}</span>
            ),
          )}
        </div>
        {/* Files, the card (calendar, email, decision, poll) and the reactions, under the body. */}
        <Attachments where={props.conversationRef} attachments={m.attachments} author={author} />
        {m.card?.type === "card.calendar" ? (
          <CalendarCard payload={m.card.payload} uid={`${props.conversationRef.conversation_id}-${m.seq}@maity`} />
        ) : m.card?.type === "card.email" ? (
          <EmailCard payload={m.card.payload} />
        ) : decision?.success ? (
          <DecisionCard
            payload={decision.data}
            askerName={nameOf(decision.data.askedBy, props.people)}
            seq={m.seq}
            where={props.conversationRef}
            me={props.me}
          />
        ) : null}
        {m.poll ? (
          <PollCard
            poll={m.poll}
            where={props.conversationRef}
            people={props.people}
            me={props.me}
            canClose={props.canReply && (m.poll.asked_by === props.me || props.manager)}
            onPoll={(poll) => actions.onChanged({ ...m, poll })}
          />
        ) : null}
        <Reactions
          reactions={m.reactions ?? []}
          conversationRef={props.conversationRef}
          seq={m.seq}
          people={props.people}
          me={props.me}
          canReact={props.canReply}
          picking={picking}
          onPicked={() => setPicking(false)}
          onReactions={(reactions) => actions.onChanged({ ...m, reactions })}
        />
        {props.routing ? <RoutingLine agents={props.routing} people={props.people} managers={props.managers} /> : null}
        {props.canRedact && asking ? (
          <form
            className="mt-2 flex flex-wrap items-end gap-2"
            aria-label="Remove message"
            onSubmit={(e) => {
              e.preventDefault();
              redact.mutate({ ...props.conversationRef, seq: m.seq, reason: reason.trim() || null });
            }}
          >
            <Input
              label="Reason (optional)"
              hideLabel
              placeholder="Reason (optional)"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              maxLength={500}
              className="min-w-48 flex-1"
            />
            <Button type="submit" variant="danger" size="sm" disabled={redact.isPending}>
              Remove for everyone
            </Button>
            <Button size="sm" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            {redact.error ? (
              <span role="alert" className="w-full text-sm text-danger-text">
                {hubErrorOf(redact.error)?.message ?? "Could not remove it."}
              </span>
            ) : null}
          </form>
        ) : null}
      </div>
      {/* The actions in a menu shown on hover and on focus (always on a touch screen). */}
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button
            variant="ghost"
            size="icon"
            aria-label={`Actions for message ${m.seq} by ${author}`}
            className={cn(
              "absolute top-0.5 right-1 size-7 border border-line bg-surface text-muted shadow-sm",
              "opacity-0 group-hover:opacity-100 focus-visible:opacity-100 data-[state=open]:opacity-100",
              "[@media(hover:none)]:opacity-100",
            )}
          >
            <MoreHorizontal aria-hidden />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end">
          {props.canReply ? (
            <DropdownMenuItem onSelect={() => actions.onReply(m)}>
              <CornerUpLeft aria-hidden />
              Reply
            </DropdownMenuItem>
          ) : null}
          {props.canReply ? (
            <DropdownMenuItem onSelect={() => setPicking(true)}>
              <SmilePlus aria-hidden />
              Add reaction
            </DropdownMenuItem>
          ) : null}
          <DropdownMenuItem onSelect={() => actions.onCopyLink(m.seq)}>
            <Link2 aria-hidden />
            Copy link
          </DropdownMenuItem>
          {props.canRedact ? (
            <DropdownMenuItem danger onSelect={() => setAsking(true)} aria-label={`Remove message ${m.seq}`}>
              <Trash2 aria-hidden />
              Remove…
            </DropdownMenuItem>
          ) : null}
        </DropdownMenuContent>
      </DropdownMenu>
    </li>
  );
});

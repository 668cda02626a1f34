"use client";
import type { ContextRing, Conversation } from "@maity/domain";
import { Avatar, Button } from "@maity/ui";
import { Eye, NotebookText, Sparkles, Users } from "lucide-react";
import { memoryTitle, type Named, nameOf } from "../wording/chatView";
import { VisitorActions, VisitorBadge } from "./BringAgent";
import type { ChatProps } from "./chatProps";
import { ManageGroup } from "./ManageGroup";
import { SessionBadge } from "./SessionBadge";

/**
 * How full an agent's memory is (004 v1.16 context reports, DESIGN §4b "Context rings"): a small
 * ring with the percent; the title says how it was measured, by what, when, how far from compacting.
 */
function MemoryRing(props: { ring: NonNullable<ContextRing> }) {
  const { percent } = props.ring;
  const shown = Math.min(100, Math.max(0, percent));
  const colour = percent >= 90 ? "var(--danger)" : percent >= 70 ? "var(--warning, #d97706)" : "var(--accent)";
  return (
    <span className="inline-flex items-center gap-1 text-xs text-muted" title={memoryTitle(props.ring)}>
      <svg viewBox="0 0 20 20" className="size-4" aria-hidden>
        <circle cx="10" cy="10" r="8" fill="none" stroke="var(--border)" strokeWidth="3" />
        <circle
          cx="10"
          cy="10"
          r="8"
          fill="none"
          stroke={colour}
          strokeWidth="3"
          strokeDasharray={`${(shown / 100) * 50.27} 50.27`}
          transform="rotate(-90 10 10)"
        />
      </svg>
      <span>
        <span className="sr-only">memory </span>
        {percent}%
      </span>
    </span>
  );
}

/**
 * The open chat's head: its title, who is in it, who reads along (§9.2 observers) and, for a group
 * chat's participants, the manage controls.
 */
export function ChatHeader(props: {
  chat: ChatProps;
  conversation: Conversation;
  people: ReadonlyMap<string, Named>;
  title: string;
  observersText: string | null;
  /** Set when the reader may open the manage controls (a participant of a group chat). */
  manage: { closed: boolean; archived: boolean } | null;
  /** The notes panel beside the chat (004 v1.17): whether it is open, and its toggle. */
  notes: { open: boolean; onToggle: () => void; panelId: string };
  /** The catch-up panel beside the chat (DESIGN §4b "Summary"), opened the same way. */
  catchUp: { open: boolean; onToggle: () => void; panelId: string; buttonId: string };
}) {
  const { conversation: c, people, title, observersText, manage } = props;
  const agent = c.participants.find((p) => p.kind === "agent");
  return (
    <header className="flex shrink-0 flex-col gap-2 border-b border-line bg-surface px-4 py-3">
      <div className="flex items-center gap-2">
        {c.kind === "group" ? (
          <span className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent-soft" aria-hidden>
            <Users className="size-4" />
          </span>
        ) : agent ? (
          <Avatar name={nameOf(agent.member_id, people)} kind="agent" decorative />
        ) : null}
        <h1 className="min-w-0 flex-1 truncate text-lg font-semibold">{title}</h1>
        <Button
          id={props.catchUp.buttonId}
          size="sm"
          variant={props.catchUp.open ? "primary" : "secondary"}
          aria-expanded={props.catchUp.open}
          aria-controls={props.catchUp.panelId}
          onClick={props.catchUp.onToggle}
        >
          <Sparkles aria-hidden />
          {/* On a phone both buttons show their icons only, so the title keeps its room. */}
          <span className="max-sm:sr-only">Catch up</span>
        </Button>
        <Button
          size="sm"
          variant={props.notes.open ? "primary" : "secondary"}
          aria-expanded={props.notes.open}
          aria-controls={props.notes.panelId}
          onClick={props.notes.onToggle}
        >
          <NotebookText aria-hidden />
          <span className="max-sm:sr-only">Notes</span>
        </Button>
      </div>
      <ul className="flex flex-wrap gap-x-3 gap-y-1.5" aria-label="Participants">
        {c.participants.map((p) => (
          <li key={p.member_id} className="flex max-w-full flex-wrap items-center gap-1.5 text-sm">
            <Avatar
              name={nameOf(p.member_id, people)}
              kind={p.kind === "agent" ? "agent" : "human"}
              size="sm"
              decorative
            />
            {nameOf(p.member_id, people)} <span className="text-muted">({p.kind})</span>
            {p.kind === "agent" && p.context ? <MemoryRing ring={p.context} /> : null}
            <VisitorBadge visiting={p.visiting} />
            <SessionBadge session={p.session} />
          </li>
        ))}
      </ul>
      {/* The sponsor reading along (DESIGN §4c) has no manage dialog: its visitors' controls show here. */}
      {c.kind === "group" && !manage
        ? c.participants
            .filter((p) => p.kind === "agent" && p.visiting?.sponsor.id === props.chat.me.id)
            .map((p) => (
              <div key={p.member_id} className="flex flex-wrap items-center gap-2 text-sm">
                <span className="text-muted">You brought {nameOf(p.member_id, people)}:</span>
                <VisitorActions {...props.chat} memberId={p.member_id} name={nameOf(p.member_id, people)} />
              </div>
            ))
        : null}
      {observersText ? (
        <p className="flex items-start gap-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="note">
          <Eye className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>{observersText}: the owner of an agent in a chat reads along, and does not write.</span>
        </p>
      ) : null}
      {c.kind === "group" && manage ? (
        <ManageGroup {...props.chat} view={c} closed={manage.closed} archived={manage.archived} />
      ) : null}
    </header>
  );
}

"use client";
import { cn } from "@maity/ui";
import { sessionOf } from "../wording/sessions";

/**
 * "session of Maintainer" (issue 30, DESIGN §4e): a person's coding terminal takes part as a named
 * session, an agent identity of that person. Wherever a chat's people are listed, its entry carries
 * `session.person` and shows a small "session" badge and whose it is; nothing for anyone else.
 */
export function SessionBadge(props: {
  session: { person: { id: string; name: string } } | undefined;
  className?: string;
}) {
  const words = sessionOf({ session: props.session });
  if (!words || !props.session) return null;
  return (
    <span
      data-testid="session-badge"
      className={cn("inline-flex max-w-full flex-wrap items-center gap-1 text-xs text-muted", props.className)}
    >
      <span className="rounded-md border border-agent bg-agent-soft px-1.5 py-0.5 font-medium text-agent-text">
        session
      </span>{" "}
      <span className="break-words">of {props.session.person.name}</span>
    </span>
  );
}

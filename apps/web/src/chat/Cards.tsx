"use client";
import { calendarCardPayload, emailCardPayload } from "@maity/domain";
import { type CalendarCardFields, calendarIcs, icsFileName } from "../wording/mediaView";
import { Button } from "@maity/ui";
import { CalendarDays, CalendarPlus, ChevronDown, ChevronUp, Mail, MapPin, Users } from "lucide-react";
import { useId, useState } from "react";

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "full", timeStyle: "short" }); // the reader's zone

/** A time range in the reader's locale and time zone; the end only as a time when it is the same day. */
function rangeWords(start?: string, end?: string): string | null {
  if (!start) return null;
  if (!end) return when(start);
  const a = new Date(start);
  const b = new Date(end);
  const sameDay = a.toDateString() === b.toDateString();
  return `${when(start)} – ${sameDay ? b.toLocaleTimeString(undefined, { timeStyle: "short" }) : when(end)}`;
}

/** Downloads the card as a one-event .ics (RFC 5545), built in the browser by the pure writer. */
function downloadIcs(card: CalendarCardFields, uid: string) {
  const blob = new Blob([calendarIcs(card, uid, new Date())], { type: "text/calendar;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = icsFileName(card.title);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

const frame = "mt-1 flex max-w-md flex-col gap-1.5 rounded-lg border border-line bg-surface p-3 text-sm";

/** v1.11 card.calendar: title, when, where, attendees, notes, and "Add to calendar". */
export function CalendarCard(props: { payload: Record<string, unknown>; uid: string }) {
  const parsed = calendarCardPayload.safeParse(props.payload);
  if (!parsed.success) return <UnknownCard type="card.calendar" />;
  const c = parsed.data;
  const range = rangeWords(c.start, c.end);
  return (
    <section className={frame} aria-label={`Event: ${c.title ?? range ?? "untitled"}`}>
      <p className="flex items-center gap-2 font-semibold">
        <CalendarDays className="size-4 text-accent" aria-hidden />
        {c.title ?? "Event"}
      </p>
      {range ? (
        <p>
          <time dateTime={c.start}>{range}</time>
        </p>
      ) : null}
      {c.location ? (
        <p className="flex items-center gap-1.5 text-muted">
          <MapPin className="size-3.5" aria-hidden />
          <span className="sr-only">Where:</span> {c.location}
        </p>
      ) : null}
      {c.attendees?.length ? (
        <p className="flex items-start gap-1.5 text-muted">
          <Users className="mt-0.5 size-3.5 shrink-0" aria-hidden />
          <span className="sr-only">Attendees:</span>
          {c.attendees.map((a) => a.name ?? a.address).join(", ")}
        </p>
      ) : null}
      {c.notes ? <p className="whitespace-pre-wrap [overflow-wrap:anywhere]">{c.notes}</p> : null}
      <Button size="sm" className="self-start" onClick={() => downloadIcs(c, props.uid)}>
        <CalendarPlus aria-hidden />
        Add to calendar
      </Button>
    </section>
  );
}

/** v1.11 card.email: subject, from, time, snippet, and the body behind a toggle. */
export function EmailCard(props: { payload: Record<string, unknown> }) {
  const parsed = emailCardPayload.safeParse(props.payload);
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  if (!parsed.success) return <UnknownCard type="card.email" />;
  const e = parsed.data;
  const from = e.from ? (e.from.name ? `${e.from.name} <${e.from.address}>` : e.from.address) : null;
  return (
    <section className={frame} aria-label={`Email: ${e.subject ?? from ?? "no subject"}`}>
      <p className="flex items-center gap-2 font-semibold">
        <Mail className="size-4 text-accent" aria-hidden />
        {e.subject ?? "(no subject)"}
      </p>
      <p className="text-muted">
        {from ? <>From {from}</> : null}
        {from && e.timestamp ? " · " : null}
        {e.timestamp ? <time dateTime={e.timestamp}>{when(e.timestamp)}</time> : null}
      </p>
      {e.snippet ? <p className="[overflow-wrap:anywhere]">{e.snippet}</p> : null}
      {e.body ? (
        <>
          <Button
            size="sm"
            variant="ghost"
            className="self-start"
            aria-expanded={open}
            aria-controls={bodyId}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? <ChevronUp aria-hidden /> : <ChevronDown aria-hidden />}
            {open ? "Hide the email" : "Show the whole email"}
          </Button>
          <div
            id={bodyId}
            hidden={!open}
            className="whitespace-pre-wrap border-t border-line pt-2 [overflow-wrap:anywhere]"
          >
            {e.body}
          </div>
        </>
      ) : null}
    </section>
  );
}

function UnknownCard(props: { type: string }) {
  return <p className="mt-1 text-sm text-muted">A card ({props.type}) this dashboard cannot show.</p>;
}

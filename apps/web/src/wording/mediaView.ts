import { type Named, nameOf } from "./chatView";
import { POLL_OPTIONS_MAX, POLL_OPTIONS_MIN } from "@maity/domain";
import { checkPoll } from "@maity/domain";

// Attachments, cards, polls and reactions in the dashboard, in words: file sizes and refusals, the
// inline image's box, the poll dialog's answers, who reacted or voted, the reaction picker, and the
// calendar card's .ics. Pure, so the browser and the tests share one rule.

/** A file's size in words (§8.7 `size` is bytes): "512 bytes", "1.5 KB", "24 MB" (1 KB = 1024 bytes). */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value < 10 ? Math.round(value * 10) / 10 : Math.round(value);
  return `${shown} ${units[unit]}`;
}

/**
 * The box an inline image takes before it loads (no jump when it does): its own size scaled down,
 * never up, to fit `max` × `max`, keeping the aspect ratio from the metadata's width and height.
 */
export function imageBox(
  width: number | null,
  height: number | null,
  max: number,
): { width: number; height: number } | null {
  if (!width || !height || width <= 0 || height <= 0) return null;
  const scale = Math.min(1, max / width, max / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The composer's file list: what the hub would refuse (B-188 the size cap, B-180 ten a message), in words. */
export function attachRefusal(
  file: { name: string; size: number },
  alreadyAttached: number,
  maxBytes: number,
  maxFiles: number,
  extensions: readonly string[],
): string | null {
  if (alreadyAttached >= maxFiles) return `At most ${maxFiles} files a message: ${file.name} was not added.`;
  const ext = /\.([^.]+)$/u.exec(file.name)?.[1]?.toLowerCase();
  if (!ext || !extensions.includes(ext))
    return `${file.name}: this type of file is not allowed (allowed: ${extensions.join(", ")}).`;
  if (file.size > maxBytes)
    return `${file.name} is too large: ${sizeWords(file.size)}, at most ${sizeWords(maxBytes)}.`;
  return null;
}

/** An upload's refusal (the hub's status and Maity error code) in words naming the file (OQ-B-12: 413, 415, 400). */
export function uploadErrorWords(fileName: string, status: number, message: string | null): string {
  if (status === 413) return `${fileName} is too large for the hub.`;
  if (status === 415) return `${fileName}: this type of file is not allowed.`;
  if (status === 0) return `${fileName} could not be uploaded: the hub could not be reached.`;
  return `${fileName} could not be uploaded${message ? `: ${message}` : "."}`;
}

/**
 * The poll dialog's answers in words, or null when the hub would take them: the hub's own rule
 * (polls.ts checkPoll, v1.12: 2–10 answers, none empty, no two the same word), worded for the dialog.
 */
export function pollOptionsProblem(options: readonly string[]): string | null {
  const checked = checkPoll("?", options);
  if (!("code" in checked)) return null;
  const trimmed = options.map((o) => o.trim());
  if (trimmed.some((o) => o === "")) return "Every answer needs some words (or remove the empty row).";
  if (checked.field === "options")
    return options.length < POLL_OPTIONS_MIN
      ? `A poll needs at least ${POLL_OPTIONS_MIN} answers.`
      : `A poll has at most ${POLL_OPTIONS_MAX} answers.`;
  const same = trimmed[Number(checked.field.split(".")[1])];
  return `Two answers say the same thing: “${same}”. Make each answer different.`;
}

/** A reaction's or an answer's people in words: "Ana, Ben and 3 others" (names, never ids). */
export function peopleWords(ids: readonly string[], people: ReadonlyMap<string, Named>, me: string, shown = 5): string {
  const names = ids.map((id) => (id === me ? "you" : nameOf(id, people)));
  if (names.length === 0) return "nobody";
  const head = names.slice(0, shown);
  const rest = names.length - head.length;
  if (rest > 0) return `${head.join(", ")} and ${rest} ${rest === 1 ? "other" : "others"}`;
  if (head.length === 1) return head[0] ?? "";
  return `${head.slice(0, -1).join(", ")} and ${head.at(-1)}`;
}

/** The emoji the "Add reaction" picker offers. */
export const COMMON_REACTIONS = ["👍", "❤️", "😂", "🎉", "👀", "✅", "🙏", "🤔", "🚀", "👎"] as const;

// ---- the calendar card's .ics (RFC 5545) ----------------------------------------------------------------

/** RFC 5545 §3.3.11: TEXT escapes backslash, semicolon, comma, and newlines as `\n`. */
export function icsEscape(text: string): string {
  return text
    .replace(/\\/gu, "\\\\")
    .replace(/;/gu, "\\;")
    .replace(/,/gu, "\\,")
    .replace(/\r\n|\r|\n/gu, "\\n");
}

/**
 * RFC 5545 §3.1: lines longer than 75 octets are folded — CRLF then one space — never inside a
 * UTF-8 sequence (a code point is kept whole), so the continuation lines hold at most 74 of theirs.
 */
export function icsFold(line: string): string {
  const encoder = new TextEncoder();
  const out: string[] = [];
  let current = "";
  let octets = 0;
  let limit = 75;
  for (const ch of line) {
    const n = encoder.encode(ch).length;
    if (octets + n > limit) {
      out.push(current);
      current = "";
      octets = 0;
      limit = 74; // the leading space of a continuation line counts
    }
    current += ch;
    octets += n;
  }
  out.push(current);
  return out.join("\r\n ");
}

/** RFC 5545 §3.3.5 form 2: a date-time in UTC, `20261205T140000Z`. */
export function icsUtc(iso: string | Date): string {
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return d
    .toISOString()
    .replace(/[-:]/gu, "")
    .replace(/\.\d{3}/u, "");
}

export interface CalendarCardFields {
  title?: string;
  start?: string;
  end?: string;
  location?: string;
  attendees?: { name?: string; address: string }[];
  notes?: string;
}

/**
 * v1.11 calendar card → a one-event iCalendar file (RFC 5545): CRLF endings, folded lines, escaped
 * text, a UID, DTSTAMP and DTSTART/DTEND in UTC. Without `end`, an hour after `start`; without
 * `start`, `now` (a card may carry only a title, B-219).
 */
export function calendarIcs(card: CalendarCardFields, uid: string, now: Date): string {
  const start = card.start ? new Date(card.start) : now;
  const end = card.end ? new Date(card.end) : new Date(start.getTime() + 3_600_000);
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Maity//Maity hub//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:${icsEscape(uid)}`,
    `DTSTAMP:${icsUtc(now)}`,
    `DTSTART:${icsUtc(start)}`,
    `DTEND:${icsUtc(end)}`,
    `SUMMARY:${icsEscape(card.title ?? "Event")}`,
  ];
  if (card.location) lines.push(`LOCATION:${icsEscape(card.location)}`);
  if (card.notes) lines.push(`DESCRIPTION:${icsEscape(card.notes)}`);
  for (const a of card.attendees ?? []) {
    // A parameter value with `:;,` is quoted (§3.2); a quote cannot appear inside one, so it is dropped.
    const cn = a.name ? `;CN="${a.name.replace(/"/gu, "")}"` : "";
    lines.push(`ATTENDEE${cn}:mailto:${a.address}`);
  }
  lines.push("END:VEVENT", "END:VCALENDAR");
  return `${lines.map(icsFold).join("\r\n")}\r\n`;
}

/** The .ics file's name: the title's words, else "event". */
export function icsFileName(title: string | undefined): string {
  const base = (title ?? "")
    .replace(/[^\p{L}\p{N} _-]+/gu, "")
    .trim()
    .replace(/\s+/gu, "-")
    .slice(0, 60);
  return `${base || "event"}.ics`;
}

import {
  type ConversationSummary,
  SUMMARY_REGENERATE_AFTER,
  SUMMARY_TAIL_MAX,
  type SummaryStatus,
  type SummaryTask,
} from "@maity/domain";

// The words of the "Catch up" panel (DESIGN §4b "Summary"), pure so they read the same everywhere.

/** Re-read every this many ms while a summary is on its way (stale or unavailable but coming). */
export const CATCH_UP_POLL_MS = 5_000;
/** …for at most this long after the panel opened or a message arrived: a generator that is down ends it. */
export const CATCH_UP_POLL_FOR_MS = 120_000;

/** Whether a summary is on its way: a stale one is remade; none yet comes once 20 messages lie past 0. */
export function summaryComing(d: ConversationSummary): boolean {
  if (d.status === "stale") return true;
  if (d.status === "fresh") return false;
  return d.earlier !== null || d.messages.filter((m) => !m.quiet).length >= SUMMARY_REGENERATE_AFTER;
}

/** The status as a short chip and a sentence a person understands. */
export function statusWords(d: ConversationSummary): { chip: string; why: string } {
  const words: Record<SummaryStatus, { chip: string; why: string }> = {
    fresh: {
      chip: "Up to date",
      why: `Fewer than ${SUMMARY_REGENERATE_AFTER} messages came after it; they follow it in the chat.`,
    },
    stale: {
      chip: "Being updated",
      why:
        "Many messages came after it, or one it drew on was removed: a new summary is being made. " +
        "This one is shown meanwhile.",
    },
    unavailable: summaryComing(d)
      ? {
          chip: "Not available yet",
          why:
            "No summary yet: it is being made now and shows here by itself. " +
            "Until then, the messages are all in the chat.",
        }
      : {
          chip: "Not available yet",
          why: `No summary yet: one is made once a chat has ${SUMMARY_REGENERATE_AFTER} messages (this one has ${
            d.messages.filter((m) => !m.quiet).length
          }).`,
        },
  };
  return words[d.status];
}

/** "extractive" → the built-in rules; "model:<name>" → the model's name. */
export function generatorWords(generator: string): string {
  if (generator === "extractive") return "the built-in rules (no model)";
  return generator.startsWith("model:") ? `the model ${generator.slice(6)}` : generator;
}

/** How many messages follow the boundary, in words ("no newer messages", "3 newer messages", "more than 200 …"). */
export function newerWords(d: ConversationSummary): string {
  const n = d.messages.length;
  if (d.earlier !== null) return `more than ${SUMMARY_TAIL_MAX} newer messages follow it`;
  if (n === 0) return "no newer messages";
  return `${n} newer ${n === 1 ? "message follows" : "messages follow"} it`;
}

/** A moment, readable: "today 14:05", "yesterday 09:12", else the date and time. */
export function momentWords(iso: string, now = new Date()): string {
  const at = new Date(iso);
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const day = (d: Date) => d.toDateString();
  if (day(at) === day(now)) return `today ${time}`;
  if (day(at) === day(new Date(now.getTime() - 86_400_000))) return `yesterday ${time}`;
  return `${at.toLocaleDateString([], { day: "numeric", month: "short", year: "numeric" })} ${time}`;
}

export const TASK_STATUS_WORDS: Record<SummaryTask["status"], string> = {
  open: "open",
  in_progress: "in progress",
  blocked: "blocked",
};

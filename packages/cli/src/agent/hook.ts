import { open } from "node:fs/promises";
import type { AgentClient } from "@maity/client";
import { percentOf, REARMING_EVENTS } from "@maity/domain";
import { type Env, envOf, readState, updateState } from "../config.ts";
import {
  HOOK_MIN_INTERVAL_MS,
  type HookInput,
  hookAnswer,
  hookReason,
  isContextEvent,
  parseHookInput,
  type Waiting,
} from "../hook.ts";
import {
  eventReports,
  readTranscript,
  type SentUsage,
  TRANSCRIPT_TAIL_BYTES,
  type TranscriptReading,
  usageDue,
  usageReadable,
  usageReport,
} from "../hookContext.ts";
import { describeError, isShown } from "../render.ts";
import type { Io } from "./io.ts";
import { PAGE } from "./rooms.ts";
import type { Session } from "./session.ts";

// The hook command: what waits for this agent since the last hook run, and how full its memory is
// (the hook's input and answer are ../hook.ts, the context reports' rules ../hookContext.ts).

/** The context reports of one run, all together, are given up after this long: the IDE's turn waits. */
const REPORT_TIMEOUT_MS = 5_000;

/**
 * One hook run: the context report (B-275…B-278) and the look for messages, side by side. The
 * report never fails the run; PreCompact takes no answer, so it only reports (a look would move
 * the cursor past messages it could not hand over).
 */
export async function hook(session: Session, io: Io): Promise<number> {
  const input = parseHookInput(await io.readStdin());
  const reported = reportContext(session, io, input);
  try {
    if (input.hook_event_name === "PreCompact") return 0;
    return await look(session, io, input);
  } finally {
    await reported;
  }
}

/**
 * The messages routed to this agent (shouldRespond) in any room since the last hook run, from one
 * /updates call (wait=0) on a cursor kept beside the credentials. The first run anchors at now.
 * Prints nothing when nothing waits; never fails the IDE's turn over a busy hub (429: silent).
 */
async function look(session: Session, io: Io, input: HookInput): Promise<number> {
  // A Stop that follows a blocked Stop: do not look (the cursor stays, the messages keep).
  if (input.stop_hook_active && !isContextEvent(input)) return 0;
  const { client, identity } = session;
  const me = await session.me();
  const key = await session.key();
  const saved = readState(identity.configDir, key).hook;
  const now = Date.now();
  if (saved && isContextEvent(input) && now - Date.parse(saved.at) < hookInterval(io.env)) return 0;
  const waiting: Waiting[] = [];
  let cursor: string;
  try {
    if (!saved) {
      cursor = (await client.updates({ wait: 0 })).cursor;
    } else {
      cursor = saved.cursor;
      try {
        for (let round = 0; round < 10; round++) {
          const answer = await client.updates({ cursor, wait: 0 });
          for (const event of answer.events) {
            if (event.message.shouldRespond && isShown(event.message, me.id)) {
              waiting.push({
                conversationId: event.conversationId,
                title: event.conversation.title,
                message: event.message,
              });
            }
          }
          cursor = answer.cursor;
          if (!answer.events.length) break;
        }
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === "CURSOR_EXPIRED")) throw error;
        // B-145: past the replay window, catch up room by room since the last run, then start at now.
        waiting.push(...(await catchUp(client, me.id, new Date(Date.parse(saved.at) - 2_000).toISOString())));
        cursor = (await client.updates({ wait: 0 })).cursor;
      }
    }
  } catch (error) {
    if (error instanceof Error && "status" in error && error.status === 429) {
      io.err("maity hook: the hub asked to slow down; looking again at the next hook");
      return 0;
    }
    throw error;
  }
  updateState(identity.configDir, key, (state) => {
    state.hook = { cursor, at: new Date(now).toISOString() };
  });
  if (!waiting.length) return 0;
  const answer = hookAnswer(input, hookReason(waiting, me));
  if (answer) io.out(JSON.stringify(answer));
  return 0;
}

/** MAITY_HOOK_INTERVAL: seconds between two looks on PostToolUse (default 5). */
function hookInterval(env: Env): number {
  const value = envOf(env, "HOOK_INTERVAL");
  const seconds = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : HOOK_MIN_INTERVAL_MS;
}

async function catchUp(client: AgentClient, me: string, since: string): Promise<Waiting[]> {
  const waiting: Waiting[] = [];
  for (const room of await client.conversations()) {
    const { messages } = await client.messages(room.id, { since, limit: PAGE });
    for (const m of messages)
      if (m.shouldRespond && isShown(m, me)) waiting.push({ conversationId: room.id, title: room.title, message: m });
  }
  return waiting;
}

/** The transcript's last TRANSCRIPT_TAIL_BYTES; null when there is no file yet (a session just started). */
async function readTail(file: string): Promise<TranscriptReading | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TRANSCRIPT_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return readTranscript(buffer.subarray(0, bytesRead).toString("utf8"), start > 0);
  } finally {
    await handle.close();
  }
}

/**
 * B-275…B-278: the reports this run makes — compact_start, compact_end or session_start by the
 * event, then usage from the transcript when due (every 15 s, or when the whole percent moved).
 * Any failure is one line on stderr: the IDE's turn goes on, and so does the look for messages.
 */
async function reportContext(session: Session, io: Io, input: HookInput): Promise<void> {
  const { identity, client } = session;
  try {
    const reading = input.transcript_path ? await readTail(input.transcript_path) : null;
    const call = reading ? usageReadable(input, reading) : null;
    const size = envOf(io.env, "CONTEXT_SIZE");
    // Nothing to say: no call to the hub at all (not even GET /me).
    if (!call && !eventReports(input, reading, undefined, size).length) return;
    const key = await session.key();
    const saved = readState(identity.configDir, key).hookContext ?? {};
    const reports = eventReports(input, reading, saved.seen, size);
    const usage = call ? usageReport(call, { size, autoCompactAt: envOf(io.env, "AUTO_COMPACT_AT") }) : null;
    // After a tidy or a fresh start the ring the hub shows is stale: the next reading goes at once.
    let sent = reports.some((r) => REARMING_EVENTS.includes(r.event ?? "usage")) ? undefined : saved.sent;
    const now = Date.now();
    const percent = usage?.report ? percentOf(usage.report.used, usage.report.size) : null;
    const due = usage?.report && percent !== null && usageDue(sent, percent, now) ? usage.report : null;
    const problem = usage?.problems.join("; ") || undefined;
    // A problem is said once, not at every tool call.
    if (problem && problem !== saved.said) io.err(`maity hook: ${problem}`);
    const signal = AbortSignal.timeout(REPORT_TIMEOUT_MS);
    for (const report of reports) await client.reportContext(report, { signal });
    if (due && percent !== null) {
      await client.reportContext(due, { signal });
      sent = { percent, at: new Date(now).toISOString(), used: due.used } satisfies SentUsage;
    }
    updateState(identity.configDir, key, (state) => {
      const seen = call?.used ?? saved.seen;
      state.hookContext = {
        ...(sent ? { sent } : {}),
        ...(seen !== undefined ? { seen } : {}),
        ...(problem ? { said: problem } : {}),
      };
    });
  } catch (error) {
    const why = describeError(error, { baseUrl: identity.baseUrl, source: identity.source });
    io.err(`maity hook: context not reported: ${why}`);
  }
}

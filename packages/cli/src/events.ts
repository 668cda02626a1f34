import { AgentApiError, type AgentClient, isRetryable } from "@maity/client";
import type { UpdatesEvent } from "@maity/domain";

// `maity listen`'s source of events. The SDK is getting `client.events({signal, cursor, onCursor})`
// (an async iterator over /ws with /updates as the fallback); until a client has it, the same
// interface is served here by a plain /updates long-poll loop (§11). `eventsOf` picks whichever
// the client offers, so nothing else changes when the SDK's arrives.

export interface EventsOptions {
  signal?: AbortSignal;
  /** Where to start (an /updates or /ws cursor); none = now. */
  cursor?: string;
  /** Called with each cursor once the events before it were handed out. */
  onCursor?: (cursor: string) => void;
  /** A line for stderr when the loop recovers from something (expired cursor, hub away). */
  onNotice?: (line: string) => void;
}
export type EventSource = (options: EventsOptions) => AsyncIterable<UpdatesEvent>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** The SDK's events() when the client has it, else the /updates loop below. */
export function eventsOf(client: AgentClient): EventSource {
  const sdk = (client as { events?: EventSource }).events;
  return typeof sdk === "function"
    ? (options) => sdk.call(client, options)
    : (options) => updatesEvents(client, options);
}

/**
 * GET /updates held 25 s at a time (B-129), from the last cursor. A 409 CURSOR_EXPIRED starts
 * again at now (said on stderr: the gap is not replayed here); 429, 5xx and an unreachable hub are
 * waited out (Retry-After, else up to 30 s); anything else — 401 above all — ends the loop.
 */
export async function* updatesEvents(client: AgentClient, options: EventsOptions = {}): AsyncGenerator<UpdatesEvent> {
  const { signal } = options;
  let cursor = options.cursor;
  let failures = 0;
  while (!signal?.aborted) {
    let answer: Awaited<ReturnType<AgentClient["updates"]>>;
    try {
      answer = await client.updates({ ...(cursor ? { cursor } : {}), wait: 25 }, signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof AgentApiError && error.code === "CURSOR_EXPIRED") {
        options.onNotice?.("the event cursor expired (over 15 minutes behind): listening again from now");
        cursor = undefined;
        continue;
      }
      if (!isRetryable(error)) throw error;
      failures += 1;
      const retryAfter = error instanceof AgentApiError ? error.retryAfter : null;
      const wait = retryAfter !== null ? retryAfter * 1000 : Math.min(30_000, 500 * 2 ** failures);
      if (failures === 1) options.onNotice?.(`the hub did not answer (${(error as Error).message}); trying again`);
      await sleep(wait, signal);
      continue;
    }
    failures = 0;
    for (const event of answer.events) yield event;
    cursor = answer.cursor;
    options.onCursor?.(cursor);
  }
}

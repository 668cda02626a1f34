import type { Env, Identity } from "../config.ts";
import { describeError } from "../render.ts";

// What every agent command shares: its streams and environment, the error it throws, a sleep that
// Ctrl-C ends, JSON output, and whether plain http is allowed.

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Env;
  /** The hook's stdin (Claude Code's JSON); empty when there is none. */
  readStdin(): Promise<string>;
  /** Ends listen and watch (Ctrl-C). */
  signal: AbortSignal;
}

/** The error context of the command that failed, for the one-line message (render.ts). */
export class CommandError extends Error {
  constructor(
    readonly original: unknown,
    readonly baseUrl: string,
    readonly conversationId: string | undefined,
    readonly source: Identity["source"] | undefined,
  ) {
    super(
      describeError(original, {
        baseUrl,
        ...(conversationId ? { conversationId } : {}),
        ...(source ? { source } : {}),
      }),
    );
  }
}

export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
export const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** B-161: plain http to a hub on another machine only when the environment says the network is trusted. */
export const insecureAllowed = (io: Io): boolean => io.env.MAITY_ALLOW_INSECURE_HTTP === "1";

/** A progress line: rewritten in place on a terminal, one line each otherwise (a log). */
export function progress(io: Io, line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${line}\u001b[K`);
  else io.err(line);
}

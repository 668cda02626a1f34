// bench:delivery's idle agents, in a worker thread of their own: each holds a /ws socket (hello,
// then its first cursor frame) and a GET /updates?wait=25 loop. Real agents are other processes;
// here they get their own event loop and heap, so their client-side work (undici, ws, JSON, GC)
// does not run on the hub's thread, while the hub still serves every socket and poll. The thread
// answers {opened} after each `add`, and {stopped, trouble} after `stop`.
import { setMaxListeners } from "node:events";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type WebSocket from "ws";
import { closeAll, inBatches, sleep, socket, within } from "./clients.ts";

export interface IdleOptions {
  apiUrl: string;
  wsUrl: string;
  idleWaitS: number;
  maxAgents: number;
}
export type IdleTrouble = {
  pollErrors: number;
  pollStatus: Record<number, number>;
  socketsClosed: number;
  messages: string[];
};

/** Idle agents on the calling thread: `add` opens their sockets and starts their polls, `stop` ends all. */
export function idleAgents({ apiUrl, wsUrl, idleWaitS, maxAgents }: IdleOptions) {
  const stopIdle = new AbortController();
  setMaxListeners(maxAgents, stopIdle.signal);
  const idleSockets: WebSocket[] = [];
  const idlePolls: Promise<void>[] = [];
  const trouble = {
    pollErrors: 0,
    pollStatus: {} as Record<number, number>,
    socketsClosed: 0,
    messages: [] as string[],
  };

  async function idleSocket(token: string): Promise<void> {
    let first: () => void = () => {};
    const cursor = new Promise<void>((resolve) => {
      first = resolve;
    });
    const s = socket(wsUrl, { authorization: `Bearer ${token}` }, (data) => {
      if ((JSON.parse(data) as { t: string }).t === "cursor") first();
    });
    await s.opened;
    s.ws.on("close", () => {
      if (!stopIdle.signal.aborted) trouble.socketsClosed += 1;
    });
    s.ws.send(JSON.stringify({ t: "hello", resume: null }));
    await within(cursor, 30_000, "idle socket's first cursor frame");
    idleSockets.push(s.ws);
  }

  /**
   * Re-issues GET /updates?wait=25 until the bench stops. The first call takes a cursor (wait=0:
   * it has none yet, so the hub reads where the log ends) and `started` says so; the next wait is
   * staggered (1…25 s), the rest are 25 s. Each loop aborts its own held call at the end: undici
   * keeps a fetch's abort listener on the signal until the request is garbage-collected, so one
   * signal shared by 1,000 loops collects thousands.
   */
  async function idlePoll(token: string, firstWait: number, started: () => void): Promise<void> {
    const own = new AbortController();
    stopIdle.signal.addEventListener("abort", () => own.abort(), { once: true });
    let cursor: string | null = null;
    let wait = 0;
    let next = firstWait;
    while (!own.signal.aborted) {
      try {
        const res = await fetch(`${apiUrl}/api/agent-api/updates?wait=${wait}${cursor ? `&cursor=${cursor}` : ""}`, {
          headers: { authorization: `Bearer ${token}` },
          signal: own.signal,
        });
        const body = (await res.json()) as { cursor: string };
        if (res.status === 200) cursor = body.cursor;
        else {
          trouble.pollStatus[res.status] = (trouble.pollStatus[res.status] ?? 0) + 1;
          await sleep(1000);
        }
      } catch (error) {
        if (own.signal.aborted) break;
        trouble.pollErrors += 1;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const message = `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`;
        if (!trouble.messages.includes(message)) trouble.messages.push(message);
        await sleep(1000);
      }
      if (wait === 0) started();
      wait = next;
      next = idleWaitS;
    }
    started();
  }

  return {
    async add(tokens: string[]): Promise<{ sockets: number; polls: number }> {
      await inBatches(tokens, 50, (token) => idleSocket(token));
      // Connecting is not idling: `add` answers once every new poll holds a cursor.
      const first: Promise<void>[] = [];
      const already = idlePolls.length;
      for (const [i, token] of tokens.entries())
        first.push(
          new Promise<void>((started) => {
            idlePolls.push(idlePoll(token, 1 + ((already + i) % idleWaitS), started));
          }),
        );
      await Promise.all(first);
      return { sockets: idleSockets.length, polls: idlePolls.length };
    },
    async stop(): Promise<IdleTrouble> {
      stopIdle.abort();
      await Promise.all(idlePolls);
      await closeAll(idleSockets);
      return trouble;
    },
  };
}

if (!isMainThread && (workerData as { idleAgents?: IdleOptions } | null)?.idleAgents) {
  const agents = idleAgents((workerData as { idleAgents: IdleOptions }).idleAgents);
  parentPort?.on("message", (message: { add?: string[]; stop?: true }) => {
    void (async () => {
      if (message.add) parentPort?.postMessage({ opened: await agents.add(message.add) });
      if (message.stop) {
        parentPort?.postMessage({ stopped: true, trouble: await agents.stop() });
        parentPort?.close();
      }
    })().catch((error: unknown) => parentPort?.postMessage({ failed: String((error as Error).stack ?? error) }));
  });
}

// bench:webhooks' two sides around the hub: the driver of the receiver thread
// (webhook-receiver.ts) and the bare loop — the same bodies, signed again with each agent's secret,
// POSTed by node:http exactly as the hub posts (a connection a request), each agent's in order, at
// most `concurrency` requests at once.
import { createHmac } from "node:crypto";
import { request } from "node:http";
import { Worker } from "node:worker_threads";
import type { PhaseReport, ReceiverReply } from "./webhook-receiver.ts";

const PHASE_TIMEOUT_MS = 180_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const sign = (secret: string, body: Uint8Array) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

// ---- the receiver thread -------------------------------------------------------------------------

export function startReceiver(secrets: string[]) {
  const worker = new Worker(new URL("./webhook-receiver.worker.mjs", import.meta.url), {
    workerData: { receiver: { secrets } },
  });
  const waiting: ((reply: ReceiverReply) => void)[] = [];
  let failure: Error | null = null;
  worker.on("message", (reply: ReceiverReply) => {
    if ("failed" in reply) failure = new Error(`receiver: ${reply.failed}`);
    else waiting.shift()?.(reply);
  });
  worker.on("error", (error) => {
    failure = error;
  });
  const ask = (message: object): Promise<ReceiverReply> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.push(resolve);
      worker.postMessage(message);
    });
  const listening = new Promise<number>((resolve) => waiting.push((r) => resolve("listening" in r ? r.listening : 0)));
  return {
    listening,
    phase: (phase: string, keep = false) => worker.postMessage({ phase, keep }),
    report: async (): Promise<PhaseReport> => {
      const reply = await ask({ report: true });
      if (!("report" in reply)) throw new Error("receiver: no report");
      return reply.report;
    },
    bodies: async () => {
      const reply = await ask({ bodies: true });
      if (!("bodies" in reply)) throw new Error("receiver: no bodies");
      return reply.bodies;
    },
    /** Waits until the phase has `count` requests; its report. */
    async until(count: number): Promise<PhaseReport> {
      const deadline = Date.now() + PHASE_TIMEOUT_MS;
      // Polled by count only (a full report every 20 ms would load this thread, the hub's).
      for (;;) {
        const reply = await ask({ count: true });
        const got = "count" in reply ? reply.count : 0;
        if (got >= count) return this.report();
        if (Date.now() > deadline) throw new Error(`receiver: ${got} of ${count} after the timeout`);
        await sleep(20);
      }
    },
    stop: async () => {
      worker.postMessage({ stop: true });
      await new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    },
  };
}

/** Every agent got exactly `expected`, in that order, and every signature was good. */
export function check(report: PhaseReport, expected: number[], agents: number): string[] {
  const problems: string[] = [];
  if (report.badSignatures) problems.push(`${report.badSignatures} bad signatures`);
  for (let i = 0; i < agents; i++) {
    const got = report.seqs[i] ?? [];
    if (got.length !== expected.length || got.some((s, j) => s !== expected[j]))
      problems.push(`agent ${i}: got [${got.slice(0, 8).join(",")}…] (${got.length}), wanted ${expected.length}`);
  }
  return problems;
}

// ---- the bare loop ---------------------------------------------------------------------------------

/** POSTs as the hub does (node:http, no keep-alive); answers the status. */
function post(port: number, path: string, headers: Record<string, string>, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent: false,
        signal: AbortSignal.timeout(10_000),
        headers: { ...headers, "content-length": String(body.byteLength) },
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Each agent's bodies in order, at most `concurrency` requests in flight, signed as the hub signs. */
export async function bareLoop(
  port: number,
  secrets: string[],
  bodies: { buffer: ArrayBuffer; lengths: number[][] },
  concurrency: number,
) {
  const queues: Uint8Array[][] = [];
  let offset = 0;
  for (const [i, lengths] of bodies.lengths.entries()) {
    queues[i] = lengths.map((length) => {
      const view = new Uint8Array(bodies.buffer, offset, length);
      offset += length;
      return view;
    });
  }
  let next = 0;
  let failures = 0;
  const lane = async () => {
    while (next < queues.length) {
      const agent = next++;
      for (const body of queues[agent] ?? []) {
        const status = await post(
          port,
          `/hook/${agent}`,
          {
            "content-type": "application/json",
            "user-agent": "maity-hub-webhook/2",
            "x-maity-event": "message.created",
            "x-maity-delivery": "bare",
            "x-maity-signature": sign(secrets[agent] as string, body),
          },
          body,
        );
        if (status < 200 || status >= 300) failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return failures;
}

// bench:webhooks' receiver, in a worker thread of its own (a real receiver is another machine): a
// node:http server on 127.0.0.1 that takes `POST /hook/<agent index>`, checks the signature with
// that agent's secret, reads the message id from the body and answers 204. It keeps, per phase, the
// order in which each agent received its messages, when the first and the last request arrived, and
// (for the hub's phase) the raw bodies, which the bare loop sends again. The main thread drives it
// with messages: {phase} starts a phase, {report} answers what it saw, {bodies} hands the bodies
// over (transferred, not copied), {count} answers how many requests came so far, {stop} closes it.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { isMainThread, parentPort, workerData } from "node:worker_threads";

export interface ReceiverOptions {
  /** The agents' webhook secrets, by agent index. */
  secrets: string[];
}
export interface PhaseReport {
  phase: string;
  requests: number;
  badSignatures: number;
  /** Wall-clock ms (performance.timeOrigin + now, comparable across threads) of the first and last request. */
  firstAt: number;
  lastAt: number;
  /** Per agent index, the message seqs in the order they arrived. */
  seqs: number[][];
}
export type ReceiverReply =
  | { listening: number }
  | { report: PhaseReport }
  | { count: number }
  | { bodies: { buffer: ArrayBuffer; lengths: number[][] } }
  | { failed: string };

/** The message id sits near the top of the body (after event, deliveryId, conversation and project). */
const MESSAGE_ID = /"message":\{"id":"evt-(\d+)"/;
const now = () => performance.timeOrigin + performance.now();

function receiver({ secrets }: ReceiverOptions) {
  let phase = "";
  let keep = false;
  let report: PhaseReport = { phase, requests: 0, badSignatures: 0, firstAt: 0, lastAt: 0, seqs: [] };
  let kept: Buffer[][] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = now();
      const index = Number((req.url ?? "").slice("/hook/".length));
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const secret = secrets[index];
      const expected = secret ? `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}` : "";
      const got = String(req.headers["x-maity-signature"] ?? "");
      if (got.length !== expected.length || !timingSafeEqual(Buffer.from(got), Buffer.from(expected)))
        report.badSignatures += 1;
      const seq = Number(MESSAGE_ID.exec(raw.subarray(0, 4096).toString("latin1"))?.[1] ?? -1);
      if (report.requests === 0) report.firstAt = at;
      report.requests += 1;
      report.lastAt = at;
      report.seqs[index]?.push(seq);
      if (keep) kept[index]?.push(raw);
      res.writeHead(204).end();
    });
  });
  return {
    server,
    start(name: string, keepBodies: boolean) {
      phase = name;
      keep = keepBodies;
      kept = secrets.map(() => []);
      report = { phase, requests: 0, badSignatures: 0, firstAt: 0, lastAt: 0, seqs: secrets.map(() => []) };
    },
    report: () => report,
    /** The kept bodies in one buffer (to be transferred), each agent's lengths in order. */
    bodies() {
      const lengths = secrets.map((_, i) => (kept[i] ?? []).map((b) => b.byteLength));
      const all = Buffer.concat(kept.flat());
      const buffer = new ArrayBuffer(all.byteLength);
      new Uint8Array(buffer).set(all);
      kept = [];
      return { buffer, lengths };
    },
  };
}

if (!isMainThread && (workerData as { receiver?: ReceiverOptions } | null)?.receiver) {
  const r = receiver((workerData as { receiver: ReceiverOptions }).receiver);
  r.server.keepAliveTimeout = 5_000;
  r.server.listen(0, "127.0.0.1", () => {
    const address = r.server.address();
    parentPort?.postMessage({ listening: typeof address === "object" && address ? address.port : 0 });
  });
  parentPort?.on(
    "message",
    (message: { phase?: string; keep?: boolean; count?: true; report?: true; bodies?: true; stop?: true }) => {
      try {
        if (message.phase !== undefined) r.start(message.phase, message.keep ?? false);
        if (message.count) parentPort?.postMessage({ count: r.report().requests });
        if (message.report) parentPort?.postMessage({ report: r.report() });
        if (message.bodies) {
          const bodies = r.bodies();
          parentPort?.postMessage({ bodies }, [bodies.buffer]);
        }
        if (message.stop) {
          r.server.closeAllConnections();
          r.server.close(() => parentPort?.close());
        }
      } catch (error) {
        parentPort?.postMessage({ failed: String((error as Error).stack ?? error) });
      }
    },
  );
}

import WebSocket from "ws";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
export const log = (line: string) => process.stderr.write(`${line}\n`);
export const since = (t: number) => `${((performance.now() - t) / 1000).toFixed(1)} s`;
export const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] as number;
};
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
/** Runs `fn` with at most `limit` calls in flight. */
export async function inBatches<T>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A client socket that resolves `opened` on open and hands every text frame to `onFrame`. */
export function socket(
  url: string,
  headers: Record<string, string>,
  onFrame: (data: string) => void,
): { ws: WebSocket; opened: Promise<void> } {
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  ws.on("message", (data) => onFrame(String(data)));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    ws.once("error", reject);
  });
  ws.on("error", () => {});
  return { ws, opened };
}
export async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          ws.once("close", () => resolve());
          ws.close();
          setTimeout(() => {
            ws.terminate();
            resolve();
          }, 2000).unref();
        }),
    ),
  );
}

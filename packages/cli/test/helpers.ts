import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Runs the real `maity` binary (bin/maity.mjs: node + tsx on src/main.ts, as `pnpm maity` does,
// without pnpm's exit-code rewriting) with a clean environment: a temp HOME and config folder,
// TZ=UTC so [HH:MM] is predictable, and nothing of this process's MAITY_* or BAYCHAT_*.

export const BIN = fileURLToPath(new URL("../bin/maity.mjs", import.meta.url));

export const tempDir = (name: string): string => mkdtempSync(path.join(tmpdir(), `maity-cli-${name}-`));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr) matches, within `ms`. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  done: Promise<Run>;
}

/** Starts the binary; it is killed after `killAfterMs` whatever happens (every run is bounded). */
export function start(
  args: string[],
  env: Record<string, string>,
  /** `stdin: "open"` leaves the child's stdin open: the test writes to `child.stdin` and ends it. */
  options: { stdin?: string; killAfterMs?: number } = {},
): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", TZ: "UTC", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const l of listeners) l();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
    for (const l of listeners) l();
  });
  if (options.stdin === "open") {
    // written and ended by the test
  } else if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  else child.stdin?.end();
  const killer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 30_000);
  const done = new Promise<Run>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout: out, stderr: err });
    }),
  );
  const waitFor = (stream: "stdout" | "stderr", pattern: RegExp, ms = 15_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = (stream === "stdout" ? out : err).match(pattern);
        if (!match) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(match);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`no ${pattern} on ${stream} within ${ms} ms; stdout: ${out}; stderr: ${err}`));
      }, ms);
      if (!check()) listeners.add(check);
    });
  return { child, stdout: () => out, stderr: () => err, waitFor, done };
}

export const run = (args: string[], env: Record<string, string>, options: { stdin?: string } = {}): Promise<Run> =>
  start(args, env, options).done;

/** A JSON call to a hub on 127.0.0.1 as a client would make it: the status and the parsed body. */
export async function hubCall(base: string, method: string, route: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

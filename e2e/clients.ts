import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

// The real clients the built-app specs drive (README's "test what users run"): the maity binary
// and Debian's Python websockets on /ws. Each is a child process, bounded by a kill.

const root = path.resolve(import.meta.dirname, "..");

/** Runs the CLI as `pnpm maity` does (bin/maity.mjs keeps its exit codes), killed after a minute. */
export function maity(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "packages/cli/bin/maity.mjs"), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const PY_SOCKET = `
import asyncio, json, sys, websockets
async def main(url, token, content):
    async with websockets.connect(url, extra_headers={"Authorization": "Bearer " + token}, open_timeout=15) as ws:
        await ws.send(json.dumps({"t": "hello", "resume": None}))
        print(json.dumps(json.loads(await asyncio.wait_for(ws.recv(), 15))), flush=True)
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame.get("t") == "event" and frame["message"]["content"] == content:
                print(json.dumps(frame), flush=True)
                return
asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
`;

/**
 * An agent on GET /api/agent-api/ws from Python's websockets (Bearer header, B-146): hello, then
 * frames until the event of a message with `content`. Resolves once its first frame came (the socket
 * is past hello); `done()` gives the exit code and the frames it printed (the first, the event).
 */
export async function pythonSocket(base: string, token: string, content: string) {
  const url = `${base.replace(/^http/, "ws")}/api/agent-api/ws`;
  const child = spawn("/usr/bin/python3", ["-c", PY_SOCKET, url, token, content], {
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve();
    });
    child.on("close", () => reject(new Error(`python exited before its first frame: ${err}`)));
  });
  return {
    async done() {
      const code = await exited;
      const frames = out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return { code, err, frames };
    },
  };
}

/** curl, as people type it: silent but for errors, bounded at 30 s. */
export function curl(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("curl", ["-sS", "--max-time", "30", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The built app as `pnpm start` runs it (NODE_ENV=production, server.ts), on 127.0.0.1:`port`. */
export type App = { url: string; child: ChildProcess; log: () => string };

/** Starts the built app with `env` on `port` and waits (up to 120 s) until /api/health answers. */
export async function startApp(env: Record<string, string>, port: number): Promise<App> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: path.join(root, "apps/web"),
    env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 120_000; ; ) {
    if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}):\n${log}`);
    const ok = await fetch(`${url}/api/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { url, child, log: () => log };
    if (Date.now() > deadline) throw new Error(`the app did not answer /api/health within 120 s:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

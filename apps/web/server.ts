// The app server: Next's request handler plus the agent protocol's WebSocket (/api/agent-api/ws),
// on HOST/PORT (default 127.0.0.1:3000).
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeHub, getHub, runtimeOptionsFromEnv } from "@maity/api";
import next from "next";
import { agentSocketServer } from "@maity/api/ws";

const dev = process.env.NODE_ENV !== "production";
const hostname = process.env.HOST || "127.0.0.1";
const port = Number(process.env.PORT || 3000);
const dir = path.dirname(fileURLToPath(import.meta.url));
// Relative data folders are taken from where the command was started (the repo root for `pnpm start`).
const cwd = process.env.INIT_CWD || process.cwd();
const options = runtimeOptionsFromEnv();
if (options.dataDir && !path.isAbsolute(options.dataDir)) options.dataDir = path.resolve(cwd, options.dataDir);

// Open (migrate, seed) before serving, so the first request never waits and errors show at start.
const hub = await getHub(options);
const health = hub.health();
console.log(`maity: database ${health.database.engine}${health.database.engine === "pglite" ? ` at ${options.dataDir}` : ""}`);

const app = next({ dev, hostname, port, dir });
const handle = app.getRequestHandler();
await app.prepare();

const agentSockets = agentSocketServer(hub);

const server = createServer((req, res) => {
  // The client's address for the pre-auth limits of the agent API; never the client's own claim.
  req.headers["x-maity-remote"] = req.socket.remoteAddress ?? "unknown";
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    res.statusCode = 500;
    res.end("internal error");
  });
});
server.on("upgrade", (req, socket, head) => {
  const { pathname } = new URL(req.url ?? "/", "http://localhost");
  if (pathname === "/api/agent-api/ws") {
    void agentSockets.upgrade(req, socket, head);
  } else if (dev) {
    app.getUpgradeHandler()(req, socket, head);
  } else {
    socket.destroy();
  }
});
server.listen(port, hostname, () => console.log(`maity: listening on http://${hostname}:${port}`));

const stop = async () => {
  // B-156: 4003, the server is going away.
  agentSockets.closeAll();
  server.close();
  await closeHub();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

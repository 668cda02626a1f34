// The app server: Next's request handler plus the WebSocket upgrade path reserved for the agent
// protocol (/api/agent-api/ws), on HOST/PORT (default 127.0.0.1:3000).
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeHub, getHub, runtimeOptionsFromEnv } from "@maity/api";
import next from "next";
import { WebSocketServer } from "ws";

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

const agentSockets = new WebSocketServer({ noServer: true });
agentSockets.on("connection", (socket) => {
  // The agent protocol issue fills this in (hello, resume, event frames); until then say so and close.
  socket.close(4003, "agent websocket not available yet");
});

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    res.statusCode = 500;
    res.end("internal error");
  });
});
server.on("upgrade", (req, socket, head) => {
  const { pathname } = new URL(req.url ?? "/", "http://localhost");
  if (pathname === "/api/agent-api/ws") {
    agentSockets.handleUpgrade(req, socket, head, (ws) => agentSockets.emit("connection", ws, req));
  } else if (dev) {
    app.getUpgradeHandler()(req, socket, head);
  } else {
    socket.destroy();
  }
});
server.listen(port, hostname, () => console.log(`maity: listening on http://${hostname}:${port}`));

const stop = async () => {
  server.close();
  agentSockets.close();
  await closeHub();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

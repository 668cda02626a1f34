// The app server on HOST/PORT (default 127.0.0.1:3000). Every /api/* request — REST, tRPC with its
// SSE subscriptions, the agent API — and the agent protocol's WebSocket (/api/agent-api/ws) are
// answered by @maity/api's own dispatch (serveApi, the same code the API tests run on their bare
// server); Next serves only the dashboard's pages and assets and never sees an API request or,
// in production, an upgrade. One module graph: the API and the hub are loaded once, here.
import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeHub, getHub } from "@maity/api";
import { answerClientError, isApiPath, pathOf, serveApi } from "@maity/api/node";
import next from "next";
import { startSettings } from "./settings.ts";

// The environment is read here, once, through @maity/api's one schema of it: a bad value stops the
// start, the variable named.
const { settings, dev } = startSettings();
const { host: hostname, port } = settings;
const dir = path.dirname(fileURLToPath(import.meta.url));

// Open (migrate, seed) before serving, so the first request never waits and errors show at start.
const hub = await getHub(settings);
const health = hub.health();
console.log(
  `maity: database ${health.database.engine}${health.database.engine === "pglite" ? ` at ${settings.dataDir}` : ""}`,
);

// Next's request handler attaches its own `upgrade` listener to `httpServer`, or else to the server
// of the first request it handles (setupWebSocketHandler in next/dist/server/next.js), and in
// production that listener ends upgrades whose path matches a route. Give it this emitter instead
// (`httpServer` is read nowhere else in Next 16), so the only upgrade listener on the real server is
// the one below. In production nothing is ever emitted on it; in dev it carries the hot-reload
// socket to Next — `app.getUpgradeHandler()` cannot: on a custom server it ends in
// NextNodeServer.handleUpgrade, which does nothing, and the socket would hang.
const nextUpgrades = new EventEmitter();
const app = next({ dev, hostname, port, dir, httpServer: nextUpgrades as unknown as Server });
const handle = app.getRequestHandler();
await app.prepare();

// POST /api/mcp: the MCP SDK loads on the first call (~0.8 s), not at every start.
const mcp = (h: typeof hub, req: Request) => import("@maity/mcp/http").then((m) => m.handleMcp(h, req));
const api = serveApi(hub, { adminToken: settings.adminToken, mcp });

const server = createServer((req, res) => {
  if (isApiPath(pathOf(req))) {
    api.request(req, res);
    return;
  }
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    if (res.headersSent) return void res.destroy();
    res.statusCode = 500;
    res.end("internal error");
  });
});
server.on("clientError", answerClientError);
server.on("upgrade", (req, socket, head) => {
  if (api.upgrade(req, socket, head)) return;
  // Dev: Next's hot reload (/_next/hmr), through the listener Next put on the emitter with its first
  // page request; never an /api path. Production: nothing else upgrades.
  if (dev && !isApiPath(pathOf(req)) && nextUpgrades.emit("upgrade", req, socket, head)) return;
  socket.destroy();
});
server.listen(port, hostname, () => console.log(`maity: listening on http://${hostname}:${port}`));

const stop = async () => {
  // B-156: 4003, the server is going away.
  api.closeAll();
  server.close();
  await closeHub();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

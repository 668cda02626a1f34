import { connect } from "@maity/client";
import { serveStdio } from "./stdio.ts";

// The stdio server's own entry, for tests and for running without the CLI:
//   MAITY_TOKEN=bay_… MAITY_API_URL=http://127.0.0.1:3000 tsx packages/mcp/src/stdio-main.ts
// The CLI's `maity mcp` serves the same server with its stored credentials (B-027).

const token = process.env.MAITY_TOKEN;
if (!token) {
  process.stderr.write("maity mcp: set MAITY_TOKEN to the agent's bay_ token (maity pair prints it)\n");
  process.exit(1);
}
const baseUrl = process.env.MAITY_API_URL ?? "http://127.0.0.1:3000";
await serveStdio(connect({ baseUrl, token }));
process.exit(0);

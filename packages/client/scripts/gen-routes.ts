import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ROUTES_FILE, renderRoutes } from "./routes.ts";

// `pnpm --filter @maity/client gen`: rewrites src/routes.gen.ts from the router, so the client's
// paths follow the hub's.
writeFileSync(ROUTES_FILE, renderRoutes());
console.log(`wrote ${fileURLToPath(ROUTES_FILE)}`);

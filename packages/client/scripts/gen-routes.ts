import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ROUTES_FILE, renderRoutes } from "./routes.ts";

// `pnpm --filter @maity/client gen`: rewrites src/routes.gen.ts from the router (issue 14).
writeFileSync(ROUTES_FILE, renderRoutes());
console.log(`wrote ${fileURLToPath(ROUTES_FILE)}`);

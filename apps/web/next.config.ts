import type { NextConfig } from "next";

// Next serves the dashboard's pages and assets only; apps/web/server.ts answers /api itself, so no
// server code of the hub (API, database drivers) is bundled here. The pages use @maity/domain's
// schemas and types.
const config: NextConfig = {
  transpilePackages: ["@maity/domain", "@maity/client", "@maity/ui"],
  poweredByHeader: false,
};
export default config;

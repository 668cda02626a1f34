import path from "node:path";
import { defineConfig } from "prisma/config";

// JS schema engine: no engine binary is downloaded (DESIGN.md §3).
export default defineConfig({
  engine: "js",
  experimental: { adapter: true },
  schema: path.join("prisma", "schema.prisma"),
  adapter: async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    const { PrismaPGlite } = await import("pglite-prisma-adapter");
    return new PrismaPGlite(new PGlite());
  },
});

import type { NextConfig } from "next";

const config: NextConfig = {
  transpilePackages: ["@maity/api", "@maity/hub", "@maity/domain", "@maity/db", "@maity/client"],
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/adapter-pg", "pg"],
  poweredByHeader: false,
};
export default config;

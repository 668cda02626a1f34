// The integration suite again, on PostgreSQL: TEST_DATABASE_URL names a server (CI starts one).
import { spawnSync } from "node:child_process";

if (!process.env.TEST_DATABASE_URL) {
  console.log("integration on PostgreSQL: skipped (set TEST_DATABASE_URL=postgresql://… to run it; .ci/run does)");
  process.exit(0);
}
console.log(`integration on PostgreSQL: ${process.env.TEST_DATABASE_URL.replace(/:[^:@/]*@/, ":***@")}`);
const run = spawnSync("pnpm", ["exec", "vitest", "run", "--project", "integration"], {
  stdio: "inherit",
  env: process.env,
});
process.exit(run.status ?? 1);

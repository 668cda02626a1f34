import { defineConfig } from "vitest/config";

// unit: pure rules and parsers. integration: a real database per test file (PGlite, or PostgreSQL
// when TEST_DATABASE_URL is set — CI runs the integration project on both).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
          // A bound against a hang, not a time limit: some unit files start a server or a child process
          // (the app's settings check, the S3 stand-in, the download guards) and take seconds on 2 busy cores.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["packages/*/test/**/*.int.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

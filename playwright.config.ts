import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT || 3199);
const dataDir = `${process.env.TMPDIR || "/tmp"}/maity-e2e-${process.pid}`;

// Debian's Chromium (no browser download here), one worker on 2 cores, the built app on a fresh data folder.
export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: `rm -rf ${dataDir} && pnpm start`,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      MAITY_DATA_DIR: dataDir,
      MAITY_ADMIN_TOKEN: "e2e-admin-token",
      MAITY_SEED: "1",
      MAITY_GROUP_CHAT_QUOTA: "1000",
      DATABASE_URL: "",
    },
  },
});

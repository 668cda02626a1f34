import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT || 3199);
const dataDir = `${process.env.TMPDIR || "/tmp"}/maity-e2e-${process.pid}`;

// Issue 15: the dashboard's scenarios run at a desktop's size in the light theme (every spec) and
// again at a phone's in the dark theme (the specs that drive the dashboard), each run on a fresh
// hub: the specs make people with fixed handles. `pnpm test:e2e` runs both.
const PROFILES = {
  "desktop-light": { viewport: { width: 1440, height: 900 }, colorScheme: "light", testMatch: "**/*.spec.ts" },
  "phone-dark": {
    viewport: { width: 390, height: 844 },
    colorScheme: "dark",
    testMatch: ["**/dashboard*.spec.ts", "**/login-and-send.spec.ts", "**/agent-live.spec.ts"],
  },
} as const;
const profileName = (process.env.E2E_PROFILE || "desktop-light") as keyof typeof PROFILES;
const profile = PROFILES[profileName];
if (!profile) throw new Error(`E2E_PROFILE: one of ${Object.keys(PROFILES).join(", ")}`);

// Debian's Chromium (no browser download here), one worker on 2 cores, the built app on a fresh data folder.
export default defineConfig({
  testDir: "e2e",
  testMatch: [...[profile.testMatch].flat()],
  outputDir: `e2e/artifacts/results/${profileName}`,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: profile.viewport,
    colorScheme: profile.colorScheme,
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

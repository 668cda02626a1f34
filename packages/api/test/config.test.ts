import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readSettings, SettingsError, settingsTable } from "../src/config.ts";

// One schema of the environment, read once; bad values are refused with the variable
// named; README's table is the schema's own.

describe("the server's settings: one schema, read once", () => {
  it("an empty environment gives the documented defaults", () => {
    expect(readSettings({})).toEqual({
      host: "127.0.0.1",
      port: 3000,
      dataDir: "./.maity/data",
      databaseUrl: undefined,
      adminToken: undefined,
      seed: true,
      groupChatQuota: 100,
      pingRate: { pings: 60, windowSeconds: 600 },
      publicUrl: undefined,
      webhookAllow: [],
      webhookConcurrency: 16,
      signup: "invite",
      summaryUrl: undefined,
      summaryModel: undefined,
      summaryKey: undefined,
      summaryTimeoutMs: 20_000,
      fileKey: undefined,
      uploadMaxBytes: 25 * 1024 * 1024,
      s3Bucket: undefined,
      s3Region: undefined,
      s3Endpoint: undefined,
      s3AccessKeyId: undefined,
      s3SecretAccessKey: undefined,
      s3ForcePathStyle: false,
    });
  });

  it("DESIGN §4b MAITY_SUMMARY_URL names the summary's model, and needs MAITY_SUMMARY_MODEL", () => {
    expect(
      readSettings({
        MAITY_SUMMARY_URL: "http://127.0.0.1:11434/v1/",
        MAITY_SUMMARY_MODEL: "llama3.1",
        MAITY_SUMMARY_KEY: "sk-1",
        MAITY_SUMMARY_TIMEOUT_MS: "5000",
      }),
    ).toMatchObject({
      summaryUrl: "http://127.0.0.1:11434/v1",
      summaryModel: "llama3.1",
      summaryKey: "sk-1",
      summaryTimeoutMs: 5000,
    });
    expect(() => readSettings({ MAITY_SUMMARY_URL: "http://127.0.0.1:11434/v1" })).toThrow(
      "MAITY_SUMMARY_MODEL: required when MAITY_SUMMARY_URL is set",
    );
    expect(() => readSettings({ MAITY_SUMMARY_URL: "ftp://x" })).toThrow("MAITY_SUMMARY_URL: an http(s) URL");
  });

  it("reads each variable", () => {
    const settings = readSettings({
      HOST: "0.0.0.0",
      PORT: "8080",
      MAITY_DATA_DIR: "/var/lib/maity",
      DATABASE_URL: "postgresql://u:p@db:5432/maity",
      MAITY_ADMIN_TOKEN: "an-operator-token-0123",
      MAITY_SEED: "0",
      MAITY_GROUP_CHAT_QUOTA: "7",
      MAITY_PING_RATE: "3/60",
      MAITY_PUBLIC_URL: "https://hub.example.org/",
      MAITY_WEBHOOK_ALLOW: "127.0.0.1, localhost,10.0.0.0/8",
      MAITY_WEBHOOK_CONCURRENCY: "64",
    });
    expect(settings.webhookConcurrency).toBe(64);
    expect(settings.webhookAllow).toEqual(["127.0.0.1", "localhost", "10.0.0.0/8"]);
    expect(settings).toMatchObject({
      host: "0.0.0.0",
      port: 8080,
      seed: false,
      groupChatQuota: 7,
      pingRate: { pings: 3, windowSeconds: 60 },
      publicUrl: "https://hub.example.org",
    });
    expect(readSettings({ DATABASE_URL: " ", MAITY_SEED: "" })).toMatchObject({ databaseUrl: undefined, seed: true });
  });

  it.each([
    ["PORT", "eighty", /PORT: a port/],
    ["PORT", "70000", /PORT: a port/],
    ["MAITY_SEED", "yes", /MAITY_SEED: 0 or 1/],
    ["MAITY_GROUP_CHAT_QUOTA", "-3", /MAITY_GROUP_CHAT_QUOTA: a whole number/],
    ["MAITY_PING_RATE", "60 per 10 minutes", /MAITY_PING_RATE: <pings>\/<seconds>/],
    ["MAITY_PING_RATE", "0/600", /MAITY_PING_RATE/],
    ["MAITY_PUBLIC_URL", "hub.example.org", /MAITY_PUBLIC_URL: an http\(s\) URL/],
    ["DATABASE_URL", "mysql://x", /DATABASE_URL: a postgresql:\/\/ URL/],
    ["MAITY_WEBHOOK_CONCURRENCY", "0", /MAITY_WEBHOOK_CONCURRENCY: a whole number of requests/],
    ["MAITY_WEBHOOK_CONCURRENCY", "2.5", /MAITY_WEBHOOK_CONCURRENCY: a whole number of requests/],
    [
      "MAITY_WEBHOOK_ALLOW",
      "localhost, 10.0.0.0/99",
      /MAITY_WEBHOOK_ALLOW: not a host name, IP address or CIDR range: 10.0.0.0\/99/,
    ],
  ])("refuses %s=%s, naming the variable", (variable, value, message) => {
    expect(() => readSettings({ [variable]: value })).toThrow(SettingsError);
    expect(() => readSettings({ [variable]: value })).toThrow(message);
  });

  it("names every bad variable at once", () => {
    try {
      readSettings({ PORT: "x", MAITY_SEED: "maybe" });
      expect.unreachable();
    } catch (error) {
      expect((error as SettingsError).problems.map((p) => p.variable)).toEqual(["PORT", "MAITY_SEED"]);
    }
  });

  it("README's Configuration table is the schema's table (pnpm docs:settings prints it)", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    expect(readme).toContain(settingsTable());
  });

  it("no service or handler reads process.env: only the settings (config.ts) and the app server's start", () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
      );
    const readers = ["domain", "hub", "api", "db"]
      .flatMap((p) => sources(join(root, "packages", p, "src")))
      .filter((file) => /process\.env/.test(readFileSync(file, "utf8")))
      .map((file) => file.slice(root.length));
    // testing.ts picks the test database (TEST_DATABASE_URL): the suite's, not the server's.
    expect(readers.sort()).toEqual(["packages/api/src/config.ts", "packages/db/src/testing.ts"]);
  });

  it("the app server refuses to start on a bad value, naming every bad variable, without a stack trace", () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const run = spawnSync(join(root, "node_modules/.bin/tsx"), ["apps/web/server.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "eighty", MAITY_SEED: "maybe", MAITY_DATA_DIR: "memory://", NODE_ENV: "production" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('PORT: a port, 1–65535 (got "eighty")');
    expect(run.stderr).toContain('MAITY_SEED: 0 or 1 (got "maybe")');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).not.toMatch(/listening/);
  });
});

import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configDirOf,
  DEFAULT_BASE_URL,
  readState,
  resolveIdentity,
  updateState,
  writeCredentials,
} from "../src/config.ts";

const temp = () => mkdtempSync(path.join(tmpdir(), "maity-config-"));
const credential = { baseUrl: "http://hub.example:3000", token: "bay_secret", agent: { id: "agt-q", name: "Q" } };

describe("credentials and environment (004 §2)", () => {
  it("B-021 the folder: MAITY_CONFIG_DIR, else BAYCHAT_CONFIG_DIR, else ~/.maity", () => {
    expect(configDirOf({ HOME: "/home/u" })).toBe("/home/u/.maity");
    expect(configDirOf({ HOME: "/home/u", BAYCHAT_CONFIG_DIR: "/b" })).toBe("/b");
    expect(configDirOf({ HOME: "/home/u", BAYCHAT_CONFIG_DIR: "/b", MAITY_CONFIG_DIR: "/m" })).toBe("/m");
  });
  it("B-022 B-023 a token in the environment: the file is not read; the URL is MAITY_API_URL or the local hub", () => {
    const dir = temp();
    writeFileSync(path.join(dir, "credentials.json"), "broken");
    expect(resolveIdentity({ MAITY_CONFIG_DIR: dir, MAITY_TOKEN: "bay_t" })).toMatchObject({
      baseUrl: DEFAULT_BASE_URL,
      token: "bay_t",
      agent: null,
      source: "env",
    });
    expect(
      resolveIdentity({ MAITY_CONFIG_DIR: dir, BAYCHAT_TOKEN: "bay_b", BAYCHAT_API_URL: "http://b/" }),
    ).toMatchObject({ baseUrl: "http://b", token: "bay_b" });
    expect(() => resolveIdentity({ MAITY_CONFIG_DIR: dir })).toThrow("is not valid JSON");
  });
  it("B-017 B-020 B-025 the file: written 0600 in 0700 with exactly its three fields; MAITY_API_URL overrides its baseUrl", () => {
    const dir = path.join(temp(), "cfg");
    const file = writeCredentials(dir, { ...credential, extra: "dropped" } as typeof credential);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(resolveIdentity({ MAITY_CONFIG_DIR: dir })).toMatchObject({ ...credential, source: "file" });
    expect(resolveIdentity({ MAITY_CONFIG_DIR: dir, MAITY_API_URL: "http://other:1" }).baseUrl).toBe("http://other:1");
  });
  it("the state file keeps each agent's cursors apart, 0600", () => {
    const dir = temp();
    updateState(dir, "agt-a@h", (s) => {
      s.cursors.c1 = { since: "2026-01-01T00:00:00.000Z", ids: ["evt-1"] };
    });
    updateState(dir, "agt-b@h", (s) => {
      s.protocolVersion = "1.23";
    });
    expect(readState(dir, "agt-a@h").cursors.c1).toEqual({ since: "2026-01-01T00:00:00.000Z", ids: ["evt-1"] });
    expect(readState(dir, "agt-b@h")).toEqual({ protocolVersion: "1.23", cursors: {} });
    expect(statSync(path.join(dir, "state.json")).mode & 0o777).toBe(0o600);
  });
});

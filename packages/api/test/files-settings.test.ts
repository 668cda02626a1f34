import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UPLOAD_HARD_CAP_BYTES } from "@maity/domain";
import { afterAll, describe, expect, it } from "vitest";
import { readSettings, SettingsError } from "../src/config.ts";
import { fileKeyOf, fileStoreOf } from "../src/runtime.ts";

// The file key (MAITY_FILE_KEY or a generated data-folder file.key), the plan limit (B-188)
// and the store chosen by MAITY_S3_BUCKET.

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), "maity-file-key-"));
  dirs.push(dir);
  return dir;
};
const problem = (env: Record<string, string>) => {
  try {
    readSettings(env);
  } catch (error) {
    return (error as SettingsError).problems;
  }
  return [];
};

describe("file settings", () => {
  it("MAITY_FILE_KEY: base64 of 32 bytes; anything else stops the start naming the variable", () => {
    const key = randomBytes(32);
    expect(Buffer.from(readSettings({ MAITY_FILE_KEY: key.toString("base64") }).fileKey ?? []).equals(key)).toBe(true);
    for (const bad of ["short", randomBytes(16).toString("base64"), "!!!not base64!!!"])
      expect(problem({ MAITY_FILE_KEY: bad })).toEqual([
        { variable: "MAITY_FILE_KEY", message: expect.stringMatching(/32 bytes/) },
      ]);
  });

  it("B-188 MAITY_UPLOAD_MAX_BYTES: the hard cap by default and at most", () => {
    expect(readSettings({}).uploadMaxBytes).toBe(UPLOAD_HARD_CAP_BYTES);
    expect(readSettings({ MAITY_UPLOAD_MAX_BYTES: "1000" }).uploadMaxBytes).toBe(1000);
    expect(problem({ MAITY_UPLOAD_MAX_BYTES: String(UPLOAD_HARD_CAP_BYTES + 1) })[0]?.variable).toBe(
      "MAITY_UPLOAD_MAX_BYTES",
    );
  });

  it("without MAITY_FILE_KEY the key is generated into <data>/file.key (0600) once, then read", async () => {
    const dataDir = await fresh();
    const first = await fileKeyOf({ dataDir, fileKey: undefined });
    expect(first.byteLength).toBe(32);
    const info = await stat(join(dataDir, "file.key"));
    expect(info.mode & 0o777).toBe(0o600);
    const again = await fileKeyOf({ dataDir, fileKey: undefined });
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
    expect((await readFile(join(dataDir, "file.key"), "utf8")).trim()).toBe(Buffer.from(first).toString("base64"));
  });

  it("a damaged file.key stops the start rather than making a new key", async () => {
    const dataDir = await fresh();
    await writeFile(join(dataDir, "file.key"), "garbage\n");
    await expect(fileKeyOf({ dataDir, fileKey: undefined })).rejects.toBeInstanceOf(SettingsError);
  });

  it("the store: the local disk under <data>/files, S3 when MAITY_S3_BUCKET is set", async () => {
    expect(fileStoreOf({ dataDir: await fresh() }).kind).toBe("local");
    const s3 = readSettings({
      MAITY_S3_BUCKET: "b",
      MAITY_S3_ENDPOINT: "http://127.0.0.1:9000",
      MAITY_S3_FORCE_PATH_STYLE: "1",
    });
    expect(fileStoreOf(s3).kind).toBe("s3");
    expect(problem({ MAITY_S3_ENDPOINT: "not a url" })[0]?.variable).toBe("MAITY_S3_ENDPOINT");
  });
});

import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BlobStore } from "./store.ts";

// The files on the local disk, under `<MAITY_DATA_DIR>/files`. A put writes a temp file in
// the same folder, fsyncs it and renames it into place, so the bytes are durable (and whole) before
// the row naming them commits; a crash leaves at most a temp file, which the orphan sweep removes.

/** A store under `root`; keys are relative paths (`attachments/att-…`), never outside it. */
export function localBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const pathOf = (key: string): string => {
    const path = resolve(base, key);
    if (!key || path === base || !path.startsWith(base + sep)) throw new Error(`not a blob key: ${key}`);
    return path;
  };
  const syncDir = async (dir: string) => {
    // The rename is durable once the folder's entry is; some platforms cannot open a folder: best effort.
    const handle = await open(dir, "r").catch(() => null);
    await handle?.sync().catch(() => {});
    await handle?.close();
  };
  return {
    kind: "local",
    async put(key, body, _size, _type) {
      const path = pathOf(key);
      const dir = dirname(path);
      await mkdir(dir, { recursive: true });
      const temp = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
      try {
        await pipeline(body instanceof Uint8Array ? Readable.from([body]) : body, createWriteStream(temp));
        const handle = await open(temp, "r+");
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, path);
        await syncDir(dir);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    async get(key) {
      const path = pathOf(key);
      const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
      return handle ? createReadStream("", { fd: handle, autoClose: true }) : null;
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async *list(prefix) {
      const walk = async function* (dir: string): AsyncGenerator<string> {
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) yield* walk(path);
          else if (entry.isFile()) yield path;
        }
      };
      for await (const path of walk(base)) {
        const key = relative(base, path).split(sep).join("/");
        if (!key.startsWith(prefix)) continue;
        const info = await stat(path).catch(() => null);
        if (info) yield { key, writtenAt: info.mtime };
      }
    },
  };
}

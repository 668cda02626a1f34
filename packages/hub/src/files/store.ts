import { Readable } from "node:stream";

// Where a file's bytes live: the local disk under the data folder by default, an
// S3-compatible bucket when MAITY_S3_* is set, so that several app instances share the files.
// The bytes are written before the row naming them commits (`put` resolves only once they are
// durable); a key no row names is an orphan and the sweep removes it.

export interface BlobStore {
  /** Stores the bytes under `key` (streamed, never buffered whole); resolves once they are durable. */
  put(key: string, body: Readable | Uint8Array, size: number, contentType: string): Promise<void>;
  /** The bytes as a stream, or null when the key holds nothing. */
  get(key: string): Promise<Readable | null>;
  /** Removes the bytes; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under `prefix` with when it was written (the orphan sweep). */
  list(prefix: string): AsyncIterable<{ key: string; writtenAt: Date }>;
  /** What it is, for the health answer and the logs. */
  readonly kind: "local" | "s3" | "memory";
}

/** The store of tests and of a hub built without one: everything in this process's memory. */
export function memoryBlobStore(): BlobStore {
  const blobs = new Map<string, { bytes: Buffer; writtenAt: Date }>();
  return {
    kind: "memory",
    async put(key, body, _size, _type) {
      const chunks: Buffer[] = [];
      if (body instanceof Uint8Array) chunks.push(Buffer.from(body));
      else for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
      blobs.set(key, { bytes: Buffer.concat(chunks), writtenAt: new Date() });
    },
    async get(key) {
      const blob = blobs.get(key);
      return blob ? Readable.from([blob.bytes]) : null;
    },
    async delete(key) {
      blobs.delete(key);
    },
    async *list(prefix) {
      for (const [key, blob] of blobs) if (key.startsWith(prefix)) yield { key, writtenAt: blob.writtenAt };
    },
  };
}

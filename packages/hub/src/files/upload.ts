import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { HubError } from "@maity/domain";
import busboy from "busboy";

// B-186, B-188: an upload is streamed into a temp file while it is counted, never buffered whole; past
// the plan limit it is refused at once and nothing more is read. The multipart body is parsed as it
// arrives (busboy), so `original=1` may come before or after the file part (B-196).

/** A file taken in: its bytes in a temp file (removed by `discard`). */
export interface Received {
  path: string;
  size: number;
  claimedName: string;
  discard(): Promise<void>;
}

/** B-188: over the plan limit; 413 (OQ-B-12), FILE_TOO_LARGE for agents. */
export const fileTooLarge = (limit: number): HubError =>
  new HubError(
    "too_large",
    `the file is larger than the limit of ${limit} bytes`,
    { fields: { file: "too_large" }, limit },
    { agentCode: "FILE_TOO_LARGE" },
  );

/** 400 INVALID_UPLOAD: the multipart body is not one file part named `file`. */
export const invalidUpload = (problem: string, message: string): HubError =>
  HubError.invalid({ file: problem }, message);
const badUpload = (problem: string, message: string) => invalidUpload(problem, message).named("INVALID_UPLOAD");

/** Streams `file` into a fresh temp file; more than `limit` bytes → fileTooLarge, the source destroyed. */
export async function receive(file: Readable, claimedName: string, limit: number): Promise<Received> {
  const dir = await mkdtemp(join(tmpdir(), "maity-upload-"));
  const path = join(dir, "file");
  const discard = () => rm(dir, { recursive: true, force: true });
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.byteLength;
      if (size > limit) done(fileTooLarge(limit));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(file, counter, createWriteStream(path));
  } catch (error) {
    file.destroy();
    await discard();
    throw error;
  }
  return { path, size, claimedName, discard };
}

/**
 * The one file part `file` of a multipart/form-data body, and its text fields. Refused: not multipart,
 * no `file` part, more than one file — 400 INVALID_UPLOAD; over `limit` — 413, reading stopped.
 */
export async function receiveMultipart(
  body: ReadableStream<Uint8Array> | null,
  contentType: string | null,
  limit: number,
): Promise<{ file: Received; fields: Record<string, string> }> {
  if (!body || !contentType?.toLowerCase().startsWith("multipart/form-data"))
    throw badUpload("missing", "send the file as multipart/form-data in a part named `file`");
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { fields: 20, fieldSize: 1024, parts: 40, headerPairs: 50 },
      defParamCharset: "utf8",
    });
  } catch {
    throw badUpload("missing", "the multipart body's boundary is missing");
  }
  const source = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
  const fields: Record<string, string> = {};
  return new Promise((resolve, reject) => {
    let pending: Promise<Received> | null = null;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      // Read no further: the rest of the body is never taken in.
      source.unpipe(parser);
      source.destroy();
      void pending?.then((file) => file.discard()).catch(() => {});
      reject(error);
    };
    parser.on("file", (name, stream, info) => {
      if (name !== "file") {
        stream.resume();
        return fail(badUpload("unexpected_part", `a file part named \`${name}\`: send the file as \`file\``));
      }
      if (pending) {
        stream.resume();
        return fail(badUpload("more_than_one", "one file per upload: send each file in its own request"));
      }
      pending = receive(stream, info.filename ?? "", limit);
      pending.catch(fail);
    });
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("error", () => fail(badUpload("malformed", "the multipart body is malformed")));
    parser.on("close", () => {
      if (failed) return;
      if (!pending) return fail(badUpload("missing", "no file part named `file`"));
      pending.then((file) => (failed ? file.discard() : resolve({ file, fields })), fail);
    });
    source.on("error", fail);
    source.pipe(parser);
  });
}

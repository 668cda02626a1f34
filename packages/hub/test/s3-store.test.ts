import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3BlobStore } from "../src/files/s3.ts";
import type { BlobStore } from "../src/files/store.ts";

// The S3-compatible store through the real SDK, against a tiny S3 stand-in on 127.0.0.1 that
// speaks just PUT, GET, DELETE and ListObjectsV2 (path-style), enough to show the four work.

const objects = new Map<string, { bytes: Buffer; at: Date; type: string }>();
let server: Server;
let store: BlobStore;
const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, bucket, ...rest] = url.pathname.split("/");
    const key = decodeURIComponent(rest.join("/"));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (bucket !== "maity") {
      res.writeHead(404).end();
      return;
    }
    if (req.method === "PUT") {
      objects.set(key, { bytes: Buffer.concat(chunks), at: new Date(), type: String(req.headers["content-type"]) });
      res.writeHead(200, { etag: '"x"' }).end();
    } else if (req.method === "GET" && key) {
      const object = objects.get(key);
      if (!object) {
        res.writeHead(404, { "content-type": "application/xml" });
        res.end(`<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`);
        return;
      }
      res.writeHead(200, { "content-type": object.type, "content-length": object.bytes.length });
      res.end(object.bytes);
    } else if (req.method === "DELETE") {
      objects.delete(key);
      res.writeHead(204).end();
    } else if (req.method === "GET" && url.searchParams.get("list-type") === "2") {
      const prefix = url.searchParams.get("prefix") ?? "";
      const contents = [...objects]
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, o]) => `<Contents><Key>${xml(k)}</Key><LastModified>${o.at.toISOString()}</LastModified></Contents>`)
        .join("");
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(
        `<?xml version="1.0"?><ListBucketResult><Name>maity</Name><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
      );
    } else res.writeHead(400).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  store = s3BlobStore({
    bucket: "maity",
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    accessKeyId: "test",
    secretAccessKey: "test",
    forcePathStyle: true,
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const text = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString();
};

describe("the S3-compatible BlobStore", () => {
  it("puts (bytes and a stream), gets, lists under a prefix and deletes", async () => {
    expect(store.kind).toBe("s3");
    await store.put("attachments/att-one", Buffer.from("one"), 3, "text/plain");
    const { Readable } = await import("node:stream");
    await store.put("attachments/att-two", Readable.from([Buffer.from("tw"), Buffer.from("o")]), 3, "text/plain");
    await store.put("other/x", Buffer.from("x"), 1, "text/plain");
    expect(objects.get("attachments/att-one")?.type).toBe("text/plain");
    const got = await store.get("attachments/att-two");
    expect(got && (await text(got))).toBe("two");
    const listed: string[] = [];
    for await (const blob of store.list("attachments/")) {
      expect(blob.writtenAt).toBeInstanceOf(Date);
      listed.push(blob.key);
    }
    expect(listed.sort()).toEqual(["attachments/att-one", "attachments/att-two"]);
    await store.delete("attachments/att-one");
    expect(await store.get("attachments/att-one")).toBeNull();
    expect(objects.has("attachments/att-one")).toBe(false);
  });
});

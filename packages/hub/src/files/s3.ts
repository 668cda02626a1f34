import type { Readable } from "node:stream";
import type { BlobStore } from "./store.ts";

// The files in an S3-compatible bucket (MAITY_S3_*), so that several app instances share
// them. S3 acknowledges a PUT only once the object is stored, which is the durability a row needs.

export interface S3Settings {
  bucket: string;
  region?: string;
  /** An S3-compatible service's URL (MinIO, R2 …); unset means AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which most S3-compatible services want. */
  forcePathStyle?: boolean;
}

/** The SDK is large: loaded on the first call, so a hub on the local disk never pays for it. */
const loadSdk = () => import("@aws-sdk/client-s3");

export function s3BlobStore(settings: S3Settings): BlobStore {
  let ready: Promise<{ sdk: Awaited<ReturnType<typeof loadSdk>>; client: import("@aws-sdk/client-s3").S3Client }>;
  const connect = () => (ready ??= loadSdk().then((sdk) => ({ sdk, client: makeClient(sdk, settings) })));
  const Bucket = settings.bucket;
  const missing = (error: unknown) => (error as { name?: string } | null)?.name === "NoSuchKey";
  return {
    kind: "s3",
    async put(key, body, size, contentType) {
      const { sdk, client } = await connect();
      await client.send(
        new sdk.PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: size, ContentType: contentType }),
      );
    },
    async get(key) {
      const { sdk, client } = await connect();
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket, Key: key }));
        return (answer.Body as Readable | undefined) ?? null;
      } catch (error) {
        if (error instanceof sdk.NoSuchKey || missing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      const { sdk, client } = await connect();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list(prefix) {
      const { sdk, client } = await connect();
      let token: string | undefined;
      // Bounded by the bucket: each page names where the next starts, the last none.
      do {
        const page = await client.send(
          new sdk.ListObjectsV2Command({ Bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
        );
        for (const object of page.Contents ?? [])
          if (object.Key) yield { key: object.Key, writtenAt: object.LastModified ?? new Date(0) };
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}

function makeClient(sdk: Awaited<ReturnType<typeof loadSdk>>, settings: S3Settings) {
  return new sdk.S3Client({
    region: settings.region ?? "us-east-1",
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
    forcePathStyle: settings.forcePathStyle ?? false,
    // Streamed bodies with the SDK's default checksums go out aws-chunked with trailers, which many
    // S3-compatible services refuse: checksum only where the service requires one.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

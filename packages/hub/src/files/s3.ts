import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Readable } from "node:stream";
import type { BlobStore } from "./store.ts";

// Issue 16: the files in an S3-compatible bucket (MAITY_S3_*), so that several app instances share
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

export function s3BlobStore(settings: S3Settings): BlobStore {
  const client = new S3Client({
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
  const Bucket = settings.bucket;
  const missing = (error: unknown) =>
    error instanceof NoSuchKey || (error as { name?: string } | null)?.name === "NoSuchKey";
  return {
    kind: "s3",
    async put(key, body, size, contentType) {
      await client.send(
        new PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: size, ContentType: contentType }),
      );
    },
    async get(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        return (answer.Body as Readable | undefined) ?? null;
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list(prefix) {
      let token: string | undefined;
      // Bounded by the bucket: each page names where the next starts, the last none.
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }),
        );
        for (const object of page.Contents ?? [])
          if (object.Key) yield { key: object.Key, writtenAt: object.LastModified ?? new Date(0) };
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}

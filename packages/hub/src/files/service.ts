import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import {
  type AllowedMimeType,
  type ProjectRef,
  attachmentTypeOf,
  HubError,
  UNSENT_UPLOAD_TTL_MS,
  UPLOAD_HARD_CAP_BYTES,
  type UploadAnswer,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { Caller } from "../access/caller.ts";
import { memberProject } from "../access/resolve.ts";
import { ImageRefusal, processImage } from "./images.ts";
import type { FileKeys } from "./keys.ts";
import { sniffType } from "./sniff.ts";
import type { BlobStore } from "./store.ts";
import { fileTooLarge, type Received, receive, receiveMultipart } from "./upload.ts";
import { sweepFiles } from "./sweep.ts";

// `hub.files` — an upload's pipeline (stream to a temp file, sniff, compress images, store
// the bytes, then the row), the bytes of a stored file, its signed URL, and the deletions (redaction,
// the 24 h sweep, orphans).

/** Where the blobs of attachments live in a store. */
export const BLOB_PREFIX = "attachments/";

/** What an upload stored: the agent answer (B-186) plus the image's dimensions (the Maity answer). */
export type StoredUpload = UploadAnswer & { width: number | null; height: number | null };

export interface UploadInput {
  /** The file's bytes, streamed. */
  file: Readable;
  /** The name the uploader gave; its extension must agree with the bytes (B-187). */
  claimedName: string;
  /** B-196: keep the exact bytes. */
  original: boolean;
  /** The Bay the file belongs to when it is not the uploader's (an upload into a project's route). */
  projectBayId?: string;
}

export interface OpenedFile {
  stream: Readable;
  mimeType: string;
  size: number;
  fileName: string;
}

/** 415 UNSUPPORTED_FILE_TYPE (OQ-B-12): the bytes are not an allowed type (B-187). */
const unsupportedType = (message: string) =>
  new HubError(
    "unsupported_media_type",
    message,
    { fields: { file: "unsupported_type" } },
    {
      agentCode: "UNSUPPORTED_FILE_TYPE",
    },
  );
/** 400 INVALID_UPLOAD: the name's extension names another type than the bytes (B-187). */
const typeMismatch = (message: string) =>
  HubError.invalid({ file: "type_mismatch" }, message, { agentCode: "INVALID_UPLOAD" });
/** 413 IMAGE_TOO_LARGE: a decompression bomb, refused before it is decoded (v1.18). */
const imageTooLarge = (message: string) =>
  new HubError("too_large", message, { fields: { file: "too_many_pixels" } }, { agentCode: "IMAGE_TOO_LARGE" });

const newAttachmentId = (): string => {
  // 16 random bytes in base 36: ~25 characters, within ATTACHMENT_ID_PATTERN's 10–40.
  return `att-${BigInt(`0x${randomBytes(16).toString("hex")}`).toString(36)}`;
};

/** The original=1 flag as a query parameter or a multipart field (B-196). */
export const isOriginalFlag = (value: string | undefined): boolean => value === "1" || value === "true";

export function filesService(db: Db, store: BlobStore, keys: FileKeys, options: { maxUploadBytes?: number } = {}) {
  const maxUploadBytes = Math.min(options.maxUploadBytes ?? UPLOAD_HARD_CAP_BYTES, UPLOAD_HARD_CAP_BYTES);

  async function bayOf(caller: Caller): Promise<string> {
    const humanId = caller.kind === "human" ? caller.id : caller.ownerId;
    const human = await db.human.findUnique({ where: { id: humanId }, select: { bayId: true } });
    if (!human) throw HubError.unauthenticated();
    return human.bayId;
  }

  /** Sniff, compress, store the bytes, then the row; the temp file is always removed. */
  async function keep(
    caller: Caller,
    received: Received,
    { original, projectBayId }: { original: boolean; projectBayId?: string | undefined },
  ): Promise<StoredUpload> {
    try {
      const claimedName = received.claimedName.trim() || "file";
      const sniffed = await sniffType(received.path, claimedName);
      if (!sniffed.ok)
        throw sniffed.code === "unsupported_type" ? unsupportedType(sniffed.message) : typeMismatch(sniffed.message);
      let body: Buffer | null = null;
      let mimeType: AllowedMimeType | string = sniffed.mimeType;
      let fileName = claimedName;
      let width: number | null = null;
      let height: number | null = null;
      let thumbhash: string | null = null;
      if (attachmentTypeOf(mimeType) === "image") {
        try {
          const image = await processImage(await readFile(received.path), { fileName: claimedName, original });
          ({ mimeType, fileName, width, height, thumbhash } = image);
          body = image.bytes;
        } catch (error) {
          if (error instanceof ImageRefusal)
            throw error.code === "image_too_large" ? imageTooLarge(error.message) : unsupportedType(error.message);
          throw error;
        }
      }
      const size = body ? body.byteLength : (await stat(received.path)).size;
      // B-188: the limit applies to the stored size.
      if (size > maxUploadBytes) throw fileTooLarge(maxUploadBytes);
      const bayId = projectBayId ?? (await bayOf(caller));
      const id = newAttachmentId();
      const blobKey = `${BLOB_PREFIX}${id}`;
      // The bytes are durable before the row names them; a failed row leaves no blob behind.
      await store.put(blobKey, body ?? createReadStream(received.path), size, mimeType);
      try {
        await db.attachment.create({
          data: {
            id,
            bayId,
            uploaderId: caller.id,
            blobKey,
            mimeType,
            sizeBytes: size,
            nameCipher: keys.encryptName(fileName),
            thumbhash,
            width,
            height,
          },
          select: { id: true },
        });
      } catch (error) {
        await store.delete(blobKey).catch(() => {});
        throw error;
      }
      return { attachmentId: id, size, mimeType, thumbhash, fileName, width, height };
    } finally {
      await received.discard();
    }
  }

  return {
    /** B-188: the plan's limit on a stored file. */
    maxUploadBytes,
    /** B-186 … B-196: one file, streamed; nothing is stored on any refusal. */
    async upload(caller: Caller, input: UploadInput): Promise<StoredUpload> {
      const received = await receive(input.file, input.claimedName, maxUploadBytes);
      return keep(caller, received, input);
    },
    /** The same, from a multipart/form-data body (field `file`, optional field `original`). */
    async uploadMultipart(
      caller: Caller,
      input: {
        body: ReadableStream<Uint8Array> | null;
        contentType: string | null;
        original: boolean;
        projectBayId?: string;
      },
    ): Promise<StoredUpload> {
      const { file, fields } = await receiveMultipart(input.body, input.contentType, maxUploadBytes);
      return keep(caller, file, {
        original: input.original || isOriginalFlag(fields.original),
        projectBayId: input.projectBayId,
      });
    },
    /**
     * The Bay of a project the caller is an active member of (an upload through the project's route
     * belongs to it, B-201); anyone else learns nothing — not_found, like an unknown project.
     */
    async projectBay(caller: Caller, ref: ProjectRef): Promise<string> {
      return (await memberProject(db, caller, ref)).bayId;
    },
    /** The bytes of a stored file, or null when it is missing or deleted. */
    async open(attachmentId: string): Promise<OpenedFile | null> {
      if (!/^att-[0-9a-z]{1,60}$/.test(attachmentId)) return null;
      const row = await db.attachment.findFirst({
        where: { id: attachmentId, deletedAt: null },
        select: { blobKey: true, mimeType: true, sizeBytes: true, nameCipher: true },
      });
      if (!row) return null;
      const stream = await store.get(row.blobKey);
      if (!stream) return null;
      return {
        stream,
        mimeType: row.mimeType,
        size: row.sizeBytes,
        fileName: keys.decryptName(row.nameCipher) ?? "file",
      };
    },
    /** B-185: an absolute URL anyone holding it may fetch for about an hour. */
    signedUrl(attachmentId: string, baseUrl: string, now = new Date()): { url: string; expiresAt: Date } {
      const { path, expiresAt } = keys.signedPath(attachmentId, now);
      return { url: `${baseUrl.replace(/\/+$/, "")}${path}`, expiresAt };
    },
    /** Redaction (§8.5, §8.7): the rows become tombstones, the bytes go. */
    async deleteBytes(ids: readonly string[]): Promise<void> {
      if (!ids.length) return;
      const rows = await db.attachment.findMany({
        where: { id: { in: [...ids] }, deletedAt: null },
        select: { id: true, blobKey: true },
      });
      if (!rows.length) return;
      await db.attachment.updateMany({
        where: { id: { in: rows.map((r) => r.id) }, deletedAt: null },
        data: { deletedAt: new Date() },
      });
      // A blob that fails to go now is named by no live row: the orphan sweep takes it later.
      for (const row of rows) await store.delete(row.blobKey).catch(() => {});
    },
    /** B-197 and orphans: see sweep.ts. */
    sweep(now = new Date()) {
      return sweepFiles(db, store, now, UNSENT_UPLOAD_TTL_MS);
    },
  };
}
export type FilesService = ReturnType<typeof filesService>;

import {
  attachmentTypeOf,
  HubError,
  projectRef,
  projectUploadSchema,
  SIGNED_URL_TTL_SECONDS,
  text,
  uploadQuery,
} from "@maity/domain";
import type { Readable } from "node:stream";
import { isOriginalFlag } from "@maity/hub";
import { z } from "zod";
import { authedRestOnly, restOnly, router, type StreamAnswer, toTRPCError } from "../trpc.ts";

// The Maity upload (a project's member, the same pipeline as the agent's POST /attachments)
// and the signed download (B-185): public, the signature is the credential. Both stream, so both are
// REST-only (restOnly): the REST adapter hands them the body stream and sends their bytes.

/** RFC 6266: the name as UTF-8 (`filename*`) and an ASCII fallback for old clients (B-184). */
export function contentDisposition(kind: "inline" | "attachment", fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_") || "file";
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The bytes of a file with the headers every download carries (B-184; the bytes are the uploader's). */
export function fileAnswer(
  file: { stream: Readable; mimeType: string; size: number; fileName: string },
  disposition: "inline" | "attachment",
  cacheControl: string,
): StreamAnswer {
  return {
    status: 200,
    body: file.stream,
    headers: {
      "content-type": file.mimeType,
      "content-length": String(file.size),
      "content-disposition": contentDisposition(disposition, file.fileName),
      "x-content-type-options": "nosniff",
      // Never run as a page of the hub's origin.
      "content-security-policy": "sandbox",
      "cache-control": cacheControl,
    },
  };
}

/** One answer for expired, altered, deleted and unknown (B-185): nothing tells them apart. */
const gone = () => toTRPCError(HubError.notFound("this link has expired or names no file"));

export const filesRouter = router({
  upload: authedRestOnly
    .meta({
      rest: {
        method: "POST",
        path: "/api/projects/{owner}/{slug}/attachments",
        status: 201,
        body: "multipart",
        summary:
          "Upload one file into the project (multipart/form-data, part `file`; `original=1` as query or field keeps " +
          "the exact bytes); 413 too_large, 415 unsupported_media_type, 400 invalid",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...uploadQuery.shape }))
    .output(projectUploadSchema)
    .mutation(async ({ ctx, input }) => {
      const projectBayId = await ctx.hub.files.projectBay(ctx.caller, input);
      const stored = await ctx.hub.files.uploadMultipart(ctx.caller, {
        body: ctx.rest.body,
        contentType: ctx.rest.contentType,
        original: isOriginalFlag(input.original),
        projectBayId,
      });
      return {
        id: stored.attachmentId,
        file_name: stored.fileName,
        size: stored.size,
        mime_type: stored.mimeType,
        type: attachmentTypeOf(stored.mimeType),
        thumbhash: stored.thumbhash,
        width: stored.width,
        height: stored.height,
      };
    }),
  download: restOnly
    .meta({
      rest: {
        method: "GET",
        path: "/api/files/{id}",
        summary:
          "A file's bytes by its signed URL (no token; ~1 h); 404 once expired, altered, deleted or unknown. " +
          "Content-Disposition carries the name",
        stream: true,
        style: "agent",
      },
    })
    .input(
      z.object({ id: text("an attachment id").max(100), exp: text("exp").optional(), sig: text("sig").optional() }),
    )
    .query(async ({ ctx, input }): Promise<StreamAnswer> => {
      const now = new Date();
      if (!input.exp || !input.sig || !ctx.hub.fileKeys.verify(input.id, input.exp, input.sig, now)) throw gone();
      const file = await ctx.hub.files.open(input.id);
      if (!file) throw gone();
      const remaining = Math.max(
        0,
        Math.min(SIGNED_URL_TTL_SECONDS, Number(input.exp) - Math.floor(now.getTime() / 1000)),
      );
      const image = attachmentTypeOf(file.mimeType) === "image";
      return fileAnswer(file, image ? "inline" : "attachment", `private, max-age=${remaining}`);
    }),
});

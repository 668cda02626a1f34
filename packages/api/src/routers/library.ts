import { projectAttachmentSchema, projectLibraryFileSchema, projectRef, text } from "@maity/domain";
import { z } from "zod";
import { authedProcedure, authedRestOnly, router, type StreamAnswer } from "../trpc.ts";
import { fileAnswer } from "./files.ts";

// The project's file library (v1.17) and the Maity attachment reads (§8.7: whoever reads the
// message reads its files, M-142, M-163). Handlers map wire shapes; hub.library holds the rules.

const P = "/api/projects/{owner}/{slug}";
const attachmentId = text("an attachment id").min(1, "required").max(100, "at most 100 characters");
const fileInput = z.strictObject({ ...projectRef.shape, attachment_id: attachmentId });

export const libraryRouter = router({
  list: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/library`, summary: "The project's file library (members; v1.17)" } })
    .input(z.strictObject({ ...projectRef.shape }))
    .output(z.array(projectLibraryFileSchema))
    .query(({ ctx, input }) => ctx.hub.library.list(ctx.caller, input)),
  add: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/library`,
        status: 201,
        summary: "Add one of your own unsent uploads to the project's library (members; 409 otherwise, no id named)",
      },
    })
    .input(fileInput)
    .output(projectLibraryFileSchema)
    .mutation(({ ctx, input }) => ctx.hub.library.add(ctx.caller, input, input.attachment_id)),
  remove: authedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: `${P}/library/{attachment_id}`,
        status: 204,
        summary: "Remove a library file: its uploader or a project admin; the bytes are deleted",
      },
    })
    .input(fileInput)
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.library.remove(ctx.caller, input, input.attachment_id);
      return null;
    }),
});

export const attachmentsRouter = router({
  get: authedProcedure
    .meta({
      rest: {
        method: "GET",
        path: `${P}/attachments/{attachment_id}`,
        summary: "A file's §8.7 metadata and name, for whoever reads its message (else not_found)",
      },
    })
    .input(fileInput)
    .output(projectAttachmentSchema)
    .query(({ ctx, input }) => ctx.hub.library.get(ctx.caller, input, input.attachment_id)),
  /** REST only: the bytes, streamed. */
  content: authedRestOnly
    .meta({
      rest: {
        method: "GET",
        path: `${P}/attachments/{attachment_id}/content`,
        summary:
          "A file's bytes: inline for images, a download otherwise or with ?download=1 (M-039: not after redaction)",
        stream: true,
      },
    })
    .input(z.strictObject({ ...fileInput.shape, download: z.enum(["0", "1"]).optional() }))
    .query(async ({ ctx, input }): Promise<StreamAnswer> => {
      const file = await ctx.hub.library.content(ctx.caller, input, input.attachment_id);
      const inline = file.mimeType.startsWith("image/") && input.download !== "1";
      return fileAnswer(file, inline ? "inline" : "attachment", "private, no-store");
    }),
});

import { z } from "zod";
import { uploadAnswerSchema } from "./files.ts";

// Issue 16: the upload operation the SDK, the MCP tools and the CLI call while the server branch
// (files-core: POST /attachments) is built in parallel. Spread into agentOperations in one line; at
// merge files-core's own `upload` entry wins and this file goes (docs/plans/issue-16.md,
// part mcp-cli-media). files, fileLink and the send's attachments came with files-messages.

export const mediaOperations = {
  upload: {
    access: "agent",
    bucket: "agent",
    method: "POST",
    path: "/api/agent-api/attachments",
    summary:
      "Upload one file (multipart/form-data, part `file`; `original=1` keeps the exact bytes) → 201 " +
      "{attachmentId, size, mimeType, thumbhash, fileName}; 413 FILE_TOO_LARGE, 415 UNSUPPORTED_FILE_TYPE, " +
      "400 INVALID_UPLOAD",
    input: z.strictObject({
      original: z.enum(["0", "1", "true", "false"], { error: "original: 1 or 0" }).optional(),
    }),
    output: uploadAnswerSchema,
    status: 201,
  },
} as const;

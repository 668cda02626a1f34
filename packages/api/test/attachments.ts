import { randomBytes } from "node:crypto";
import type { Hub } from "@maity/hub";

// Test helper: files as the upload route (files-core) leaves them, without the route.

/** An uploaded file as the upload route leaves it (another branch builds the route): bytes, then the row. */
export async function uploaded(
  h: Hub,
  uploaderId: string,
  options: { bayId?: string; mimeType?: string; name?: string; bytes?: Buffer } = {},
): Promise<string> {
  const id = `att-${randomBytes(8).toString("hex")}`;
  const bytes = options.bytes ?? Buffer.from(`the bytes of ${id}`);
  const mimeType = options.mimeType ?? "application/pdf";
  await h.blobs.put(`files/${id}`, bytes, bytes.length, mimeType);
  await h.db.attachment.create({
    data: {
      id,
      bayId: options.bayId ?? "bay-maintainer",
      uploaderId,
      blobKey: `files/${id}`,
      mimeType,
      sizeBytes: bytes.length,
      nameCipher: h.fileKeys.encryptName(options.name ?? "secret-plan.pdf"),
      thumbhash: mimeType.startsWith("image/") ? "3OcRJYB4d3h/iIeHeEh3eIhw+j2w" : null,
      width: mimeType.startsWith("image/") ? 640 : null,
      height: mimeType.startsWith("image/") ? 480 : null,
    },
  });
  return id;
}

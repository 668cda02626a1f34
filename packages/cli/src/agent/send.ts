import type { AgentClient } from "@maity/client";
import { checkUploadExtension, LocalFileRefusal } from "@maity/client/download";
import { statSync } from "node:fs";
import { sizeText } from "../render.ts";
import type { Io } from "./io.ts";

// The send command's files: checked, then uploaded before the message that carries them.

/** Files above this size get a line on stderr as their upload starts and ends. */
const PROGRESS_BYTES = 1024 * 1024;

/**
 * B-213 B-214: every file checked (type by extension, present, a regular file) before the first
 * upload, so a refusal leaves nothing on the hub; then uploaded one by one, in order.
 */
export async function uploadAll(client: AgentClient, paths: string[], io: Io): Promise<string[]> {
  const sizes = paths.map((path) => {
    checkUploadExtension(path);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      throw new LocalFileRefusal(`${path}: no such file; nothing was uploaded`);
    }
    if (!stat.isFile()) throw new LocalFileRefusal(`${path}: not a file; nothing was uploaded`);
    return stat.size;
  });
  const ids: string[] = [];
  for (const [i, path] of paths.entries()) {
    const size = sizes[i] ?? 0;
    const large = size >= PROGRESS_BYTES;
    if (large) io.err(`uploading ${i + 1}/${paths.length} ${path} (${sizeText(size)})…`);
    // A line at each quarter of the bytes sent: readable in a terminal and in a log alike.
    let quarter = 0;
    const onProgress = (sent: number, total: number) => {
      const reached = Math.floor((sent / total) * 4);
      if (reached <= quarter || reached >= 4) return;
      quarter = reached;
      io.err(`  ${reached * 25}% (${sizeText(sent)} of ${sizeText(total)})`);
    };
    const uploaded = await client.upload(path, large ? { onProgress } : {});
    if (large) io.err(`uploaded ${i + 1}/${paths.length} ${path} → ${uploaded.attachmentId}`);
    ids.push(uploaded.attachmentId);
  }
  return ids;
}

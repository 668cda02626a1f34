import { agentAttachmentSchema } from "@maity/domain";
import { z } from "zod";

// A message's parts as text, for every client that shows one to a person or a model: the CLI's lines
// and the MCP tools' results. Each surface passes its own cleaner for untrusted text (§9: a message
// never forges a line), so the wording lives once and the escaping stays the surface's.

/** `12 KB`, `1 MB`, as 004 §10's example writes sizes. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

const attachmentsOf = z.array(agentAttachmentSchema);

/**
 * B-216, OQ-B-31: each attachment on its own line under its message, `i/n` only when there is more
 * than one; the URL is the signed one (~1 h), to fetch promptly and never to keep.
 */
export function attachmentLines(
  metadata: Record<string, unknown> | null | undefined,
  clean: (untrusted: string) => string,
): string[] {
  const parsed = attachmentsOf.safeParse(metadata?.attachments);
  if (!parsed.success) return [];
  const files = parsed.data;
  return files.map((a, i) => {
    const index = files.length > 1 ? ` ${i + 1}/${files.length}` : "";
    const what = `${a.type}, ${clean(a.mimeType)}, ${sizeText(a.sizeBytes)}`;
    return `    ↳ attachment${index} (${what}): ${clean(a.attachmentUrl)} — expires ~1h`;
  });
}

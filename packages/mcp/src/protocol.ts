import { readFileSync } from "node:fs";

// B-003: the `maity://protocol` resource serves the agent protocol document. protocol.md is the
// canonical file's generated copy (scripts/sync-protocol.mjs; test/protocol.test.ts fails while
// they differ, B-002's rule), read once, on the first read of the resource.

export const PROTOCOL_URI = "maity://protocol";
export const PROTOCOL_MIME_TYPE = "text/markdown";

let cached: string | null = null;
export function protocolDocument(): string {
  cached ??= readFileSync(new URL("../protocol.md", import.meta.url), "utf8");
  return cached;
}

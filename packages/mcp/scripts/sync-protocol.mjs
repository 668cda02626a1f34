#!/usr/bin/env node
// Copies the canonical protocol document (shared/spec/004_*.txt) to packages/mcp/protocol.md, the
// copy the `maity://protocol` resource serves (B-003). Like B-002's served copy it is generated,
// never hand-edited: test/protocol.test.ts fails while it differs from the canonical file.
// Run: pnpm --filter @maity/mcp sync-protocol (MAITY_SPEC_DIR points at another spec folder).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.resolve(pkg, "../..");

/** The one `004_*.txt` in the spec folder (the workspace's `../shared/spec` unless MAITY_SPEC_DIR says). */
export function canonicalProtocolPath() {
  const dir = process.env.MAITY_SPEC_DIR ?? path.resolve(root, "../shared/spec");
  const found = readdirSync(dir).filter((f) => /^004_.*\.txt$/.test(f));
  if (found.length !== 1) throw new Error(`expected one 004_*.txt in ${dir}, found ${found.length}`);
  return path.join(dir, found[0]);
}

export const PROTOCOL_COPY = path.join(pkg, "protocol.md");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const source = canonicalProtocolPath();
  writeFileSync(PROTOCOL_COPY, readFileSync(source));
  console.log(`protocol.md ← ${source}`);
}

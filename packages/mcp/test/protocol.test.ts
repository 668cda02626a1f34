import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { protocolDocument } from "../src/protocol.ts";

// B-003 (B-002's rule): the resource serves a generated copy of the canonical protocol document;
// this fails while the copy differs. Fix: pnpm --filter @maity/mcp sync-protocol.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const specDir = process.env.MAITY_SPEC_DIR ?? path.resolve(root, "../shared/spec");

// A clone without the workspace's spec folder beside it (CI clones elsewhere) cannot compare: the
// resource still serves the committed copy, checked where the canonical file is.
describe("maity://protocol's copy of the protocol document (B-003)", () => {
  it.skipIf(!existsSync(specDir))("B-003 packages/mcp/protocol.md is byte-identical to the canonical 004_*.txt", () => {
    const found = readdirSync(specDir).filter((f) => /^004_.*\.txt$/.test(f));
    expect(found, `one 004_*.txt in ${specDir}`).toHaveLength(1);
    const canonical = readFileSync(path.join(specDir, found[0] as string), "utf8");
    const copy = readFileSync(path.resolve(root, "packages/mcp/protocol.md"), "utf8");
    expect(copy === canonical, "protocol.md is stale: run pnpm --filter @maity/mcp sync-protocol").toBe(true);
    expect(protocolDocument()).toBe(canonical);
  });

  it("B-003 the resource serves the committed copy: the protocol's title and this version's changelog", () => {
    const served = protocolDocument();
    expect(served).toBe(readFileSync(path.resolve(root, "packages/mcp/protocol.md"), "utf8"));
    expect(served).toContain("Protocol v1.23");
  });
});

#!/usr/bin/env node
// The `maity` command without pnpm in between: `pnpm maity …` runs through `pnpm exec`, which
// turns every failing exit code into 1, and `maity watch` means something by 2 (B-092). Loads
// the TypeScript sources through tsx (the repository's dev dependency), as `pnpm maity` does.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");

// `pnpm docs:access`: prints docs/api.md's table of which credentials each operation accepts (access.ts).
import { accessTable } from "./access.ts";

console.log(accessTable());

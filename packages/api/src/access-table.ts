// `pnpm docs:access`: prints docs/api.md's table of which credentials each operation accepts (access.ts).
import { accessTable } from "./access.ts";
import { restRoutes } from "./rest/index.ts";

const routes = new Map(restRoutes().map((r) => [r.name, `${r.meta.method} ${r.meta.path}`]));
console.log(accessTable((name) => routes.get(name) ?? ""));

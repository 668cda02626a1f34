import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES_FILE, renderRoutes } from "../scripts/routes.ts";

// The client's REST paths are generated from the router; a route added there without
// `pnpm --filter @maity/client gen` fails here instead of being forgotten by the client.
describe("routes.gen.ts", () => {
  it("is what the router renders today (run `pnpm --filter @maity/client gen` when it is not)", () => {
    expect(readFileSync(ROUTES_FILE, "utf8")).toBe(renderRoutes());
  });
});

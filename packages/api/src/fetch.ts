import { parseBearer } from "@maity/domain";
import type { Hub } from "@maity/hub";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { clientAddress } from "./agent/http.ts";
import { appRouter } from "./routers/index.ts";
import { adminAccess, callerFromRequest, isSecure } from "./session.ts";

/** tRPC over fetch at /api/trpc, with the caller from bearer or session cookie. */
export function handleTrpc(hub: Hub, req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async ({ resHeaders }) => {
      const { caller, session, bearer } = await callerFromRequest(hub, req);
      // Issue 13 #7: what a live stream re-checks when its member's credentials change.
      const token = bearer ? parseBearer(req.headers.get("authorization")) : null;
      const instanceId = req.headers.get("x-agent-instance");
      const credential = token ? { token, instanceId } : session ? { session } : null;
      const admin = adminAccess(req, process.env.MAITY_ADMIN_TOKEN);
      const address = clientAddress(req);
      return { hub, caller, session, resHeaders, secure: isSecure(req), admin, credential, address };
    },
  });
}

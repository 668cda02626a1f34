import type { Hub } from "@maity/hub";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "./routers/index.ts";
import { adminAccess, callerFromRequest, isSecure } from "./session.ts";
import { isInternal } from "./trpc.ts";

/** tRPC over fetch at /api/trpc, with the caller from bearer or session cookie. */
export function handleTrpc(hub: Hub, req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async ({ resHeaders }) => {
      const { caller, session } = await callerFromRequest(hub, req);
      return { hub, caller, session, resHeaders, secure: isSecure(req), admin: adminAccess(req, process.env.MAITY_ADMIN_TOKEN) };
    },
    // Issue 13 #3: the caller reads "internal error" (trpc.ts); the detail is the server's to log.
    onError: ({ error, path }) => {
      if (isInternal(error)) console.error(`tRPC ${path ?? "?"}:`, error.cause ?? error);
    },
  });
}

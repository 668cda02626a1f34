import { REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import type { Hub } from "@maity/hub";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { bodyTooLarge, limitBody, PREAUTH_BODY_MAX_BYTES } from "./body.ts";
import { baseUrlOf, clientAddress, cookieChangeRefusal } from "./edge.ts";
import { appRouter } from "./routers/index.ts";
import { type ApiOptions, adminAccess, callerFromRequest, isSecure } from "./session.ts";
import { isInternal, toTRPCError } from "./trpc.ts";

const ENDPOINT = "/api/trpc";

/** A call's body limit: the routes' 256 KiB, the pre-auth routes' small one. */
function bodyLimitOf(req: Request): number {
  const paths = new URL(req.url).pathname.slice(ENDPOINT.length + 1).split(",");
  // What anyone may send without a credential: login and the agent API's pairing routes.
  const preauth = [
    "auth.login",
    "agent.pair",
    "agent.link",
    "agent.linkPoll",
    "devices.open",
    "devices.poll",
    "devices.logout",
  ];
  return paths.some((p) => preauth.includes(p)) ? PREAUTH_BODY_MAX_BYTES : REQUEST_BODY_MAX_BYTES;
}

/**
 * tRPC over fetch at /api/trpc, with the caller from bearer or session cookie. tRPC reads the body
 * itself and had no limit: it reads it through `limitBody`, which fails the read with
 * 413 PAYLOAD_TOO_LARGE (hubError `too_large`, the limit named) as soon as it passes the limit.
 */
export function handleTrpc(hub: Hub, req: Request, options: ApiOptions = {}): Promise<Response> {
  const limit = bodyLimitOf(req);
  const limited = limitBody(req, limit, () => toTRPCError(bodyTooLarge(limit)));
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req: limited,
    router: appRouter,
    createContext: async ({ resHeaders }) => {
      // CSRF: the same cross-site rule as REST (tRPC itself only asks for a JSON content type).
      const refusal = cookieChangeRefusal(limited, hub.publicUrl);
      if (refusal) throw toTRPCError(refusal);
      // What a live stream re-checks (B-156: revocation ends it) when its member's credentials change.
      const { caller, session, credential, device } = await callerFromRequest(hub, limited);
      const admin = adminAccess(limited, options.adminToken);
      const address = clientAddress(limited);
      const baseUrl = baseUrlOf(limited, hub.publicUrl);
      return {
        hub,
        caller,
        device,
        session,
        resHeaders,
        secure: isSecure(limited),
        admin,
        credential,
        address,
        signal: req.signal,
        baseUrl,
      };
    },
    // No internal detail leaks: the caller reads "internal error" (trpc.ts); the detail is the server's to log.
    onError: ({ error, path }) => {
      if (isInternal(error)) console.error(`tRPC ${path ?? "?"}:`, error.cause ?? error);
    },
  });
}

import { timingSafeEqual } from "node:crypto";
import type { Caller, Credential, DeviceCaller, Hub } from "@maity/hub";
import { SESSION_TTL_MS } from "@maity/hub";
import { DEVICE_TOKEN_PREFIX, parseBearer } from "@maity/domain";

export const SESSION_COOKIE = "maity_session";

/**
 * A cookie's value, or null. Malformed percent-encoding is no cookie (never a 500): the
 * caller is then unauthenticated — not refused with 400, which would also refuse the login that
 * replaces the broken cookie.
 */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      return null;
    }
  }
  return null;
}

/** httpOnly, SameSite=Lax, Secure over https. */
export function sessionCookie(value: string, secure: boolean, maxAgeMs = SESSION_TTL_MS): string {
  const parts = [
    `${SESSION_COOKIE}=${encodeURIComponent(value)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
export const clearSessionCookie = (secure: boolean): string => sessionCookie("", secure, 0);

export function isSecure(req: Request): boolean {
  return new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";
}

/** The header a device credential names its terminal session with (DESIGN §4e, B-310). */
export const SESSION_HEADER = "x-maity-session";

/** Who is calling, by which credential (what a held read re-checks), and a device credential's person. */
export interface RequestCaller {
  caller: Caller | null;
  /** The session cookie's value when the caller came by cookie. */
  session: string | null;
  bearer: boolean;
  credential: Credential | null;
  /** A `bay_u_` device credential without a session named: the person, for the device API (DESIGN §4e). */
  device: DeviceCaller | null;
}

/**
 * Bearer first (REST, agents, scripts), then the session cookie (the dashboard). A device
 * credential (`bay_u_`) is a person who acts only as a named session (B-310): with `X-Maity-Session`
 * it is that session's agent identity (the agent API); without, the device API's person.
 */
export async function callerFromRequest(hub: Hub, req: Request): Promise<RequestCaller> {
  const bearer = parseBearer(req.headers.get("authorization"));
  if (req.headers.get("authorization")) {
    if (bearer?.startsWith(DEVICE_TOKEN_PREFIX)) {
      const as = req.headers.get(SESSION_HEADER)?.trim().toLowerCase();
      if (as) {
        const caller = await hub.auth.asSession(bearer, as);
        return { caller, session: null, bearer: true, credential: { device: bearer, as }, device: null };
      }
      const device = await hub.auth.fromDevice(bearer);
      return { caller: null, session: null, bearer: true, credential: { device: bearer, as: "" }, device };
    }
    const instanceId = req.headers.get("x-agent-instance");
    return {
      caller: await hub.auth.fromToken(bearer, instanceId),
      session: null,
      bearer: true,
      credential: bearer ? { token: bearer, instanceId } : null,
      device: null,
    };
  }
  const session = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
  return {
    caller: await hub.auth.fromSession(session),
    session,
    bearer: false,
    credential: session ? { session } : null,
    device: null,
  };
}

/** The operator's bearer: "hidden" when MAITY_ADMIN_TOKEN is unset (the admin routes then do not exist). */
/** What the API's handlers take from the settings beyond the hub (config.ts). */
export interface ApiOptions {
  /** MAITY_ADMIN_TOKEN: enables the operator routes; while unset they answer 404. */
  adminToken?: string | undefined;
}

export function adminAccess(req: Request, adminToken: string | undefined): "ok" | "hidden" | "unauthenticated" {
  if (!adminToken) return "hidden";
  const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1];
  if (!given) return "unauthenticated";
  const a = Buffer.from(given);
  const b = Buffer.from(adminToken);
  return a.length === b.length && timingSafeEqual(a, b) ? "ok" : "unauthenticated";
}

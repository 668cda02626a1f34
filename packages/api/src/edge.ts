import { HubError } from "@maity/domain";
import { readCookie, SESSION_COOKIE } from "./session.ts";

// What every HTTP surface refuses before a handler sees the request: malformed
// percent-encoding (a client error, never a 500) and cross-site changes riding on the session cookie (CSRF).

/** A path segment, percent-decoded; malformed encoding is the client's error, named, not a 500. */
export function decodeSegment(raw: string, field: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw HubError.invalid({ [field]: "malformed_percent_encoding" }, `${field}: malformed percent-encoding`);
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether the request would be authenticated by the session cookie: it has one and no Authorization. */
export const byCookie = (req: Request): boolean =>
  !req.headers.has("authorization") && readCookie(req.headers.get("cookie"), SESSION_COOKIE) !== null;

/** The hosts this hub is reached at: the request's Host, a proxy's X-Forwarded-Host, MAITY_PUBLIC_URL's. */
function ownHosts(req: Request, publicUrl: string | undefined): Set<string> {
  const hosts = new Set<string>();
  const add = (value: string | null | undefined) => {
    const host = value?.split(",")[0]?.trim().toLowerCase();
    if (host) hosts.add(host);
  };
  add(req.headers.get("host") ?? new URL(req.url).host);
  add(req.headers.get("x-forwarded-host"));
  // The settings refused a malformed MAITY_PUBLIC_URL at start (config.ts).
  if (publicUrl) add(new URL(publicUrl).host);
  return hosts;
}

/** Whether an Origin header names one of the hub's own hosts (the scheme is not compared: a TLS proxy). */
function sameOrigin(origin: string, req: Request, publicUrl: string | undefined): boolean {
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return false; // "null" (a sandboxed or privacy-stripped origin) is no origin of ours.
  }
  return ownHosts(req, publicUrl).has(host);
}

/**
 * CSRF: a change (any method but GET/HEAD/OPTIONS) authenticated by the session cookie
 * must come from the hub's own pages — an Origin naming the hub's host (or, without Origin,
 * `Sec-Fetch-Site: same-origin|none`), else `forbidden` (reason `cross_site`) — and send JSON, else
 * `unsupported_media_type` (a cross-site HTML form can only send form or text/plain bodies). A route that
 * takes an upload (`multipart`, B-186) accepts multipart/form-data too — but only with an Origin
 * header naming the hub (a cross-site form can send multipart; Sec-Fetch-Site alone is not enough).
 * Bearer calls carry no ambient credential and are not concerned. One rule for REST and tRPC.
 */
export function cookieChangeRefusal(
  req: Request,
  publicUrl: string | undefined,
  options: { multipart?: boolean } = {},
): HubError | null {
  if (SAFE_METHODS.has(req.method) || !byCookie(req)) return null;
  const origin = req.headers.get("origin");
  const site = req.headers.get("sec-fetch-site");
  const ours = origin !== null ? sameOrigin(origin, req, publicUrl) : site === "same-origin" || site === "none";
  if (!ours)
    return HubError.forbidden(
      "cross_site",
      "a change made with the session cookie must come from the hub's own pages (Origin or Sec-Fetch-Site)",
    );
  // A body-less change (a DELETE) may name no type; anything sent must be declared JSON.
  const type = req.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  const sends = req.headers.has("transfer-encoding") || Number(req.headers.get("content-length") ?? 0) > 0;
  if (options.multipart && type === "multipart/form-data" && origin !== null) return null;
  if (type === undefined ? sends : type !== "application/json")
    return new HubError("unsupported_media_type", "a change made with the session cookie must send application/json", {
      fields: { "content-type": "not_json" },
    });
  return null;
}

/** Where the hub is reached: MAITY_PUBLIC_URL (`hub.publicUrl`), else the request's own origin (behind a proxy, its forwarded one). */
export function baseUrlOf(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const url = new URL(req.url);
  const proto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(":", "");
  const host = req.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || req.headers.get("host") || url.host;
  return `${proto}://${host}`;
}

/** The client's address for pre-auth limits: the custom server's own header, else the proxy's. */
export const clientAddress = (req: Request): string =>
  req.headers.get("x-maity-remote") ?? req.headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "unknown";

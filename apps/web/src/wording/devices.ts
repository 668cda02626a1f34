import { relativeTime } from "./chatView";
import { andList } from "./house";

// The words of device login in the dashboard (issue 30, DESIGN §4e): the approve page /device/{code}
// and "Your devices". Pure, table-tested (test/devices.test.ts); the clock is the caller's.

type Bay = { id: string; name: string };
type HubError = { code: string; message: string; details: { fields?: Record<string, string>; reason?: string } };

/** How a computer is named: its label, or that it gave none. */
export const deviceName = (label: string | null): string => label?.trim() || "A computer without a name";

/** The computer inside a sentence: its label, or "the computer". */
const inSentence = (label: string | null): string => label?.trim() || "the computer";

/** The Bays ticked at first: all of them when there is one, else the first — the person's own. */
export function defaultBays(bays: readonly Bay[]): string[] {
  if (bays.length === 1) return bays.map((b) => b.id);
  return bays[0] ? [bays[0].id] : [];
}

/** The Bays chosen, by name, in the order the page lists them. */
export const chosenNames = (bays: readonly Bay[], chosen: readonly string[]): string[] =>
  bays.filter((b) => chosen.includes(b.id)).map((b) => b.name);

/** After Approve. */
export function approvedWords(label: string | null, bayNames: readonly string[]): string {
  const where = bayNames.length ? ` in ${andList(bayNames)}` : "";
  return `Signed in: ${inSentence(label)} can now act as you${where}. You can sign it out on Your devices.`;
}

/** After Deny. */
export const DENIED_WORDS = "Refused: the computer was not signed in.";

/** A code nobody opened, or one decided by someone else (hidden = missing): not there. */
export const DEVICE_NOT_FOUND =
  "This sign-in request is not there: the code is wrong, or someone else already answered it. Run `maity login` on the computer again for a new one.";

/** A request that can no longer be decided, by where it stands (status or a 409's reason); null while open. */
export function deviceClosed(status: string | undefined): string | null {
  switch (status) {
    case "expired":
      return "This sign-in request expired. Run `maity login` on the computer again for a new one.";
    case "approved":
      return "This computer was signed in already. You can sign it out on Your devices.";
    case "denied":
      return "This sign-in request was refused already: the computer was not signed in.";
    default:
      return null;
  }
}

/** Why Approve or Deny was refused, in words. */
export function decisionRefusal(error: HubError | null): string | null {
  if (!error) return null;
  if (error.details.fields?.bays === "not_yours")
    return "One of the chosen Bays is no longer yours. Reload the page and choose again.";
  const closed = error.code === "conflict" ? deviceClosed(error.details.reason) : null;
  if (closed) return closed;
  if (error.code === "not_found") return DEVICE_NOT_FOUND;
  return error.message;
}

/** Approve with nothing ticked: what to do instead. */
export const NO_BAY_CHOSEN = "Choose at least one Bay: the computer acts as you only in the Bays you tick.";

/** When the request stops being open: "Expires in 9 minutes", "…in under a minute", "Expired". */
export function expiresWords(expiresAt: string, now: Date): string {
  const ms = Date.parse(expiresAt) - now.getTime();
  if (ms <= 0) return "Expired";
  if (ms < 60_000) return "Expires in under a minute";
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `Expires in ${minutes} minute${minutes === 1 ? "" : "s"}`;
  const hours = Math.floor(minutes / 60);
  return `Expires in ${hours} hour${hours === 1 ? "" : "s"}`;
}

/** Whether the request is past its time by this clock (the page's last answer may be older). */
export const isPast = (expiresAt: string, now: Date): boolean => Date.parse(expiresAt) <= now.getTime();

/**
 * A past moment, in a sentence: "just now", "5 min ago", "3 h ago", "yesterday", "on Mon",
 * "on 12 Nov" — the list's short relative time (relativeTime), turned into words.
 */
export function agoWords(iso: string, now: Date, locale = "en-GB"): string {
  const short = relativeTime(iso, now, locale);
  if (short === "now") return "just now";
  if (/^\d+ (min|h)$/.test(short)) return `${short} ago`;
  if (short === "Yesterday") return "yesterday";
  return `on ${short}`;
}

/** A device's line: "Signed in 3 h ago · last used 5 min ago" (or "not used yet"). */
export function deviceTimes(device: { created_at: string; last_used_at: string | null }, now: Date): string {
  const used = device.last_used_at ? `last used ${agoWords(device.last_used_at, now)}` : "not used yet";
  return `Signed in ${agoWords(device.created_at, now)} · ${used}`;
}

/** Which Bays a device opens: "Acts as you in maintainer and garden". */
export function deviceBays(bays: readonly Bay[]): string {
  return bays.length ? `Acts as you in ${andList(bays.map((b) => b.name))}` : "Opens no Bay";
}

/** The row's confirmation before Sign out. */
export function signOutQuestion(label: string | null): string {
  return `Sign out ${inSentence(label)}? Its terminals stop acting as you at once; run \`maity login\` there to sign it in again.`;
}

/** The toast after Sign out. */
export const signedOutWords = (label: string | null): string => `Signed out ${inSentence(label)}`;

/** Your devices, when there are none. */
export const NO_DEVICES = "Run `maity login` on a computer to let its coding terminals take part as you.";

import { z } from "zod";
import { text } from "./text.ts";

// Device login (issue 30, DESIGN §4e; 004 "If your client connects as a person", B-324): a person
// signs a computer in once — `maity login` opens a request, the person approves it in the dashboard
// for one or more of their Bays — and the computer holds one `bay_u_` credential per Bay, each
// opening exactly that Bay. The shapes follow the reverse link's (004 §2): camelCase on the device
// API, snake_case on the people's routes.

/** What a device credential starts with (a person's, through a device; never an agent's `bay_`). */
export const DEVICE_TOKEN_PREFIX = "bay_u_";
/** How long an unapproved login request lives. */
export const DEVICE_LOGIN_TTL_MS = 10 * 60 * 1000;
export const DEVICE_POLL_INTERVAL_SECONDS = 2;

/** POST /api/device-api/login: the computer names itself; the person sees the label before approving. */
export const deviceLoginInput = z.strictObject({
  label: text("a string").trim().max(80, "at most 80 characters").optional(),
});
export const deviceLoginOpenedSchema = z.object({
  id: z.string(),
  secret: z.string(),
  code: z.string(),
  approveUrl: z.string(),
  expiresAt: z.string(),
  pollIntervalSeconds: z.number().int(),
});
export type DeviceLoginOpened = z.output<typeof deviceLoginOpenedSchema>;

export const deviceLoginPollInput = z.strictObject({
  id: text("a login request id").min(1, "required").max(60, "a login request id"),
  secret: text("the secret the login request gave").min(1, "required").max(200, "too long"),
});
const bayRef = z.object({ id: z.string(), name: z.string() });
/** One Bay's credential: `token` opens exactly `bay` (B-324). */
export const deviceCredentialSchema = z.object({ bay: bayRef, baseUrl: z.string(), token: z.string() });
/** The poll: pending until the person decides; the credentials once, then the request is spent. */
export const deviceLoginPollSchema = z.union([
  z.object({ status: z.literal("pending") }),
  z.object({ status: z.literal("denied") }),
  z.object({ status: z.literal("expired") }),
  z.object({ status: z.literal("approved"), credentials: z.array(deviceCredentialSchema) }),
]);
export type DeviceLoginPoll = z.output<typeof deviceLoginPollSchema>;

/** GET /api/device/{code}: what the person approves — the label, the code, and the Bays offered. */
export const deviceLoginViewSchema = z.object({
  code: z.string(),
  label: z.string().nullable(),
  status: z.enum(["pending", "approved", "denied", "expired"]),
  created_at: z.string(),
  expires_at: z.string(),
  /** The Bays the person belongs to: their own, and those of projects they are a member of. */
  bays: z.array(bayRef),
});
export const deviceApproveInput = z.strictObject({
  code: text("a login code").min(1, "required").max(64, "a login code"),
  bays: z.array(text("a Bay id").min(1).max(120)).min(1, "choose at least one Bay").max(50, "at most 50 Bays"),
});
export const deviceDenyInput = z.strictObject({
  code: text("a login code").min(1, "required").max(64, "a login code"),
});

/** GET /api/me/devices: a person's signed-in computers (revoked ones are gone from the list). */
export const deviceEntrySchema = z.object({
  id: z.string(),
  label: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  bays: z.array(bayRef),
});
export const deviceListOutput = z.object({ items: z.array(deviceEntrySchema) });

/**
 * Where a login request stands (pure): decided once, never after it expired or was collected. An
 * approval must also be collected before the request expires — a secret left lying about opens
 * nothing later. A collected request answers like one that never was (its secret spent).
 */
export function deviceLoginStatus(
  row: { approvedAt: Date | null; deniedAt: Date | null; expiresAt: Date },
  now: Date,
): "pending" | "approved" | "denied" | "expired" {
  if (row.deniedAt) return "denied";
  if (row.expiresAt <= now) return "expired";
  return row.approvedAt ? "approved" : "pending";
}

import { z } from "zod";
import { createHumanInput } from "./schemas.ts";
import { text } from "./text.ts";

// Invites (issue 29, DESIGN §4c): a project's admin makes a link that lets people join — with an
// expiry, a number of uses, revocable. Opening it signed in joins the project; without an account
// it offers sign-up first. The code is a bearer secret: stored as a hash, shown once. A wrong code
// tells nothing (not even that a project exists); a right one that expired, was used up or revoked
// says which.

export const INVITE_HOURS_DEFAULT = 7 * 24;
export const INVITE_HOURS_MAX = 30 * 24;
export const INVITE_USES_DEFAULT = 10;
export const INVITE_USES_MAX = 1000;

export const inviteCreateFields = z.strictObject({
  expires_in_hours: z
    .number({ error: `whole hours, 1–${INVITE_HOURS_MAX}` })
    .int(`whole hours, 1–${INVITE_HOURS_MAX}`)
    .min(1, `whole hours, 1–${INVITE_HOURS_MAX}`)
    .max(INVITE_HOURS_MAX, `whole hours, 1–${INVITE_HOURS_MAX}`)
    .default(INVITE_HOURS_DEFAULT),
  max_uses: z
    .number({ error: `1–${INVITE_USES_MAX}` })
    .int(`1–${INVITE_USES_MAX}`)
    .min(1, `1–${INVITE_USES_MAX}`)
    .max(INVITE_USES_MAX, `1–${INVITE_USES_MAX}`)
    .default(INVITE_USES_DEFAULT),
});

export const INVITE_STATUSES = ["valid", "expired", "spent", "revoked"] as const;
export type InviteStatus = (typeof INVITE_STATUSES)[number];

/** Whether an invite still lets people in, and if not why (revoked first: a person's decision). */
export function inviteStatus(
  i: { expiresAt: Date; maxUses: number; uses: number; revokedAt: Date | null },
  now: number,
): InviteStatus {
  if (i.revokedAt !== null) return "revoked";
  if (i.expiresAt.getTime() <= now) return "expired";
  if (i.uses >= i.maxUses) return "spent";
  return "valid";
}

/** An invite as its project's admins list it: never its code. */
export const inviteSchema = z.object({
  id: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  max_uses: z.number().int(),
  uses: z.number().int(),
  revoked_at: z.string().nullable(),
  status: z.enum(INVITE_STATUSES),
});
export type Invite = z.output<typeof inviteSchema>;
/** The answer to making one: the code and the link's path, shown this once. */
export const inviteCreatedSchema = inviteSchema.extend({ code: z.string(), path: z.string() });
export const inviteListOutput = z.object({ items: z.array(inviteSchema) });

/** A code of the path: any string; an unknown one answers not_found like a malformed one. */
export const inviteCode = text("an invite code").min(1, "required").max(200, "an invite code");

/** GET /api/invites/{code}: where it leads while it is valid; the status alone when not. */
export const invitePreviewSchema = z.object({
  status: z.enum(INVITE_STATUSES),
  project: z.object({ owner: z.string(), slug: z.string(), name: z.string() }).nullable(),
});

/** POST /api/auth/signup: the password rules of every person; an invite joins its project at once. */
export const signupInput = z.strictObject({ ...createHumanInput.shape, invite: inviteCode.optional() });
export const signupOutput = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  /** The project the invite joined, when one was given. */
  project: z.object({ owner: z.string(), slug: z.string(), name: z.string() }).nullable(),
});
export const inviteAcceptOutput = z.object({
  project: z.object({ owner: z.string(), slug: z.string(), name: z.string() }),
  /** False when the caller was a member already (the invite's uses are not spent then). */
  joined: z.boolean(),
});

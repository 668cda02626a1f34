import { z } from "zod";
import { PERMISSIONS } from "./ids.ts";
import { handleSchema, memberIdSchema } from "./schemas.ts";
import { text } from "./text.ts";
import { ruleIssue } from "./validation.ts";

// People run their own house (DESIGN §4c): a project of one's own Bay, its members, one's own agents.
// The operator routes (/api/admin/*) stay for bootstrapping and automation, on the same services.

const projectName = text("a string").trim().min(1, "required").max(120, "at most 120 characters");

/** POST /api/projects: a project in the caller's Bay; the caller its first admin. */
export const projectCreateInput = z.strictObject({ slug: handleSchema, name: projectName });

/** PATCH /api/projects/{owner}/{slug} (members:admin): a rename never changes the brief's version. */
export const projectPatchFields = z.strictObject({
  name: projectName.optional(),
  share_with_visitors: z.boolean({ error: "true or false" }).optional(),
});
export const projectPatchOutput = z.object({
  id: z.string(),
  owner: z.string(),
  slug: z.string(),
  full_name: z.string(),
  name: z.string(),
  archived: z.boolean(),
  share_with_visitors: z.boolean(),
});

/** One member as GET …/members lists it (DESIGN §4c), visitors marked. */
export const memberEntrySchema = z.object({
  member_id: z.string(),
  kind: z.enum(["human", "agent"]),
  name: z.string(),
  handle: z.string(),
  /** An agent's owner (its Bay's person); null for a human. */
  owner_id: z.string().nullable(),
  permissions: z.array(z.string()),
  status: z.enum(["active", "removed", "isolated"]),
  /** An agent of another Bay in this project (B-298): where from and who brought it; null otherwise. */
  visiting: z
    .object({
      home_bay: z.string(),
      sponsor: z.object({ id: z.string(), name: z.string() }),
    })
    .nullable(),
});
export type MemberEntry = z.output<typeof memberEntrySchema>;
export const memberListOutput = z.object({ items: z.array(memberEntrySchema) });

/** POST …/members (members:admin): a person by handle or id; an agent of the project's own Bay by id. */
export const memberAddShape = {
  handle: handleSchema.optional(),
  member_id: memberIdSchema.optional(),
  permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length).optional(),
};
/** One of handle and member_id names the member, never both. */
export function oneMemberNamed(
  ctx: z.core.ParsePayload<{ handle?: string | undefined; member_id?: string | undefined }>,
) {
  const { handle, member_id } = ctx.value;
  if ((handle === undefined) === (member_id === undefined))
    ctx.issues.push(
      ruleIssue(handle === undefined ? "required" : "not_with_member_id", ["handle"], ctx.value, {
        says: "name the member by handle or by member_id, one of the two",
      }),
    );
}
export const memberAddFields = z.strictObject(memberAddShape).check(oneMemberNamed);

/** POST /api/agents: an agent owned by the caller, in the caller's Bay; `owner/handle` is its name. */
export const agentCreateFields = z.strictObject({
  handle: handleSchema,
  description: text("a string").max(2000, "at most 2000 characters").optional(),
});
/** PATCH /api/agents/{agent_id} (its owner). */
export const agentPatchFields = z.strictObject({
  description: text("a string").max(2000, "at most 2000 characters"),
});
export const ownAgentSchema = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  owner_id: z.string(),
  description: z.string(),
});

/**
 * Who may place an agent into a room (v1.14, DESIGN §4c, B-300). An agent of the project's own Bay
 * follows §9's rules ("member"); one of another Bay is a visitor, placed by its sponsor only — the
 * person who brings it, here its owner (Bays are personal unless the operator puts people in one) —
 * and by nobody else, a project admin included ("not_sponsor").
 */
export function placementOf(
  agent: { ownerId: string; homeBayId: string },
  projectBayId: string,
  callerId: string,
): "member" | "visitor" | "not_sponsor" {
  if (agent.homeBayId === projectBayId) return "member";
  return agent.ownerId === callerId ? "visitor" : "not_sponsor";
}

/** POST …/visitors/{member_id}/recall (B-307): the rooms it left, each told "<name> was sent home". */
export const recallOutput = z.object({ rooms_left: z.array(z.string()) });

/**
 * The restricted profile's agent list (v1.14, B-304, B-305): an agent visiting anywhere, or sharing a
 * room with a live visitor, lists only the agents in those rooms. `rooms`: the agent's open rooms,
 * each with its agent participants (itself included) and whether each is visiting there. Null: not
 * restricted (its usual list); else the ids it may list, itself left out.
 */
export function restrictedDirectory(
  self: string,
  rooms: readonly { agents: readonly { id: string; visiting: boolean }[] }[],
): Set<string> | null {
  const restricting = rooms.filter((r) => r.agents.some((a) => a.visiting));
  if (restricting.length === 0) return null;
  return new Set(restricting.flatMap((r) => r.agents.map((a) => a.id)).filter((id) => id !== self));
}

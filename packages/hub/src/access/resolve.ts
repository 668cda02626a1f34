import { HubError, isManager, type ProjectRef } from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import { findProject } from "./projects.ts";
import type { Caller } from "./caller.ts";
import type { RawQueryable } from "../raw.ts";
import { type KeyRow, readKeys } from "./visibility.ts";

// Who may do what to a conversation, decided from the same keys query the list reads (visibility.ts).

export const conversationNotFound = (): HubError => HubError.notFound("conversation not found");

/** The project of a conversation route; an unknown project answers like an unknown conversation. */
export async function projectOf(db: RawQueryable, ref: ProjectRef) {
  return findProject(db, ref.owner, ref.slug);
}

/**
 * The one "reader or missing" rule for a project's routes: the project when `caller` is an active
 * member of it — one statement — and not_found for anyone else, exactly like an unknown project
 * (hidden is answered like missing; §9.2 M-146: nothing of a project reaches a non-member).
 */
/**
 * A visiting agent (DESIGN §4c) reads the visited project through the agent API only, where its
 * history floor and wake hold (B-301, B-303); §9's people's routes would show it the whole history,
 * so they answer it as a non-member. `$3` is the caller, `p` the project.
 */
const VISITING = `EXISTS (SELECT 1 FROM agents va JOIN humans vh ON vh.id = va.owner_id
  WHERE va.id = $3 AND vh.bay_id <> p.bay_id)`;
async function visitingIn(db: RawQueryable, agentId: string, projectBayId: string): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ visiting: boolean }[]>(
    "SELECT EXISTS (SELECT 1 FROM agents a JOIN humans h ON h.id = a.owner_id WHERE a.id = $1 AND h.bay_id <> $2) AS visiting",
    agentId,
    projectBayId,
  );
  return row?.visiting === true;
}

export async function memberProject(db: RawQueryable, caller: Caller, ref: ProjectRef) {
  const [row] = await db.$queryRawUnsafe<
    { id: string; bay_id: string; slug: string; name: string; archived_at: Date | string | null }[]
  >(
    `SELECT p.id, p.bay_id, p.slug, p.name, p.archived_at FROM projects p
       JOIN bays b ON b.id = p.bay_id
       JOIN memberships m ON m.project_id = p.id AND m.member_id = $3 AND m.status = 'active'
     WHERE b.handle = $1 AND p.slug = $2 AND NOT ${VISITING}`,
    ref.owner,
    ref.slug,
    caller.id,
  );
  if (!row) throw HubError.notFound("project not found");
  const archivedAt = row.archived_at === null ? null : new Date(row.archived_at);
  return { id: row.id, bayId: row.bay_id, slug: row.slug, name: row.name, archivedAt, bay: { handle: ref.owner } };
}

/** The conversation as `caller` sees it (participant, party or observer), or not_found. */
export async function resolveConversation(
  db: RawQueryable,
  caller: Caller,
  ref: ProjectRef,
  conversationId: string,
  options: { lean?: boolean } = {},
): Promise<KeyRow> {
  const project = await projectOf(db, ref);
  if (!project || conversationId.length === 0 || conversationId.length > 100) throw conversationNotFound();
  if (caller.kind === "agent" && (await visitingIn(db, caller.id, project.bayId))) throw conversationNotFound();
  const [row] = await readKeys(db, caller, {
    projectId: project.id,
    observed: true,
    conversationId,
    lean: options.lean ?? false,
  });
  if (!row) throw conversationNotFound();
  return row;
}

/** Writes to the chat itself (post, manage, redact): an observer reads along only (§9.2). */
export function refuseObserver(row: KeyRow): void {
  if (row.access === "observer") throw HubError.forbidden("observer", "an observer reads along and does not write");
}

export function refuseClosed(row: KeyRow): void {
  if (row.closedAt)
    throw new HubError("conversation_closed", "the group chat is closed", { closed_reason: row.closedReason });
}

export function refuseDirect(row: KeyRow): void {
  if (row.kind === "direct")
    throw HubError.invalid(
      { conversation: "direct" },
      "a direct conversation has no title and no participants to change",
    );
}

/**
 * The project when `caller` is an active member holding members:admin: an outsider meets a missing
 * project (M-146), a member who is no admin 403 `not_an_admin` saying what only an admin does.
 */
export async function adminProject(db: Db, caller: Caller, ref: ProjectRef, what: string) {
  const project = await memberProject(db, caller, ref);
  if (!(await isProjectAdmin(db, project.id, caller.id)))
    throw HubError.forbidden("not_an_admin", `only a members:admin person of the project ${what}`);
  return project;
}

export async function isProjectAdmin(db: Db | Tx, projectId: string, memberId: string): Promise<boolean> {
  const m = await db.membership.findFirst({
    where: { projectId, memberId, status: "active" },
    select: { permissions: true },
  });
  return m?.permissions.includes("members:admin") ?? false;
}

/** §9.2 Who manages (domain isManager); agents and other participants are not managers. */
export async function refuseNonManager(db: Db | Tx, caller: Caller, row: KeyRow): Promise<void> {
  const participant = row.access === "participant";
  const creator = row.createdById === caller.id;
  // The admin lookup only matters for a human participant who did not create the chat.
  const projectAdmin =
    caller.kind === "human" && participant && !creator && (await isProjectAdmin(db, row.projectId, caller.id));
  if (!isManager({ callerKind: caller.kind, participant, creator, projectAdmin }))
    throw HubError.forbidden(
      "not_a_manager",
      "only the chat's creator and participants holding members:admin manage it",
    );
}

/**
 * The group chat a manager changes: not_found, then direct → invalid, observer → forbidden,
 * closed → conversation_closed (before who may manage it, §9.2 M-107), then not_a_manager.
 */
export async function resolveManaged(
  db: Db | Tx,
  caller: Caller,
  ref: ProjectRef,
  conversationId: string,
): Promise<KeyRow> {
  const row = await resolveConversation(db, caller, ref, conversationId);
  refuseDirect(row);
  refuseObserver(row);
  refuseClosed(row);
  await refuseNonManager(db, caller, row);
  return row;
}

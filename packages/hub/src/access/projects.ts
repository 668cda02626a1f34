import { projectFullName } from "@maity/domain";
import type { RawQueryable } from "../raw.ts";

/** A project by owner and slug, in one statement (every conversation route starts here). */
export async function findProject(tx: RawQueryable, owner: string, slug: string) {
  const [row] = await tx.$queryRawUnsafe<
    { id: string; bay_id: string; slug: string; name: string; archived_at: Date | string | null; owner: string }[]
  >(
    `SELECT p.id, p.bay_id, p.slug, p.name, p.archived_at, b.handle AS owner FROM projects p JOIN bays b ON b.id = p.bay_id WHERE b.handle = $1 AND p.slug = $2`,
    owner,
    slug,
  );
  if (!row) return null;
  const archivedAt =
    row.archived_at === null ? null : row.archived_at instanceof Date ? row.archived_at : new Date(row.archived_at);
  return { id: row.id, bayId: row.bay_id, slug: row.slug, name: row.name, archivedAt, bay: { handle: row.owner } };
}

export function renderProject(p: {
  id: string;
  slug: string;
  name: string;
  archivedAt: Date | null;
  bay: { handle: string };
}) {
  return {
    id: p.id,
    owner: p.bay.handle,
    slug: p.slug,
    full_name: projectFullName(p.bay.handle, p.slug),
    name: p.name,
    archived: p.archivedAt !== null,
  };
}

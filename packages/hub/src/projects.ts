import { projectFullName } from "@maity/domain";
import type { Db, Tx } from "@maity/db";

export async function findProject(tx: Tx | Db, owner: string, slug: string) {
  return tx.project.findFirst({
    where: { slug, bay: { handle: owner } },
    select: { id: true, slug: true, name: true, archivedAt: true, bay: { select: { handle: true } } },
  });
}

export function renderProject(p: { id: string; slug: string; name: string; archivedAt: Date | null; bay: { handle: string } }) {
  return {
    id: p.id,
    owner: p.bay.handle,
    slug: p.slug,
    full_name: projectFullName(p.bay.handle, p.slug),
    name: p.name,
    archived: p.archivedAt !== null,
  };
}


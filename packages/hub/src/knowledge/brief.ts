import { type BriefView, HubError, normalizeBrief, type ProjectRef } from "@maity/domain";
import type { SqlExecutor } from "@maity/db";
import type { Caller } from "../access/caller.ts";
import { memberProject } from "../access/resolve.ts";
import { rawOf } from "../raw.ts";

// The project brief, the people's side (DESIGN §4b; spec 004 v1.15 B-261, B-262): any human member
// of the project reads and writes it; an agent of the project is refused with humans_only after the
// visibility check (hidden = missing first); nobody else sees the project (not_found).

type BriefRow = {
  brief: string | null;
  brief_version: number;
  brief_updated_at: Date | null;
  brief_updated_by: string | null;
};

const view = (row: BriefRow | undefined): BriefView => ({
  brief: row?.brief ?? null,
  version: Number(row?.brief_version ?? 0),
  updated_at: row?.brief_updated_at ? row.brief_updated_at.toISOString() : null,
  updated_by: row?.brief_updated_by ?? null,
});

const READ_SQL = `SELECT brief, brief_version, brief_updated_at, brief_updated_by FROM projects WHERE id = $1`;

/**
 * One statement, so two writers never take one version: the text and version change together, and
 * only when the text differs (B-262; `IS DISTINCT FROM` compares null too). No row: nothing changed.
 */
const WRITE_SQL = `
UPDATE projects SET brief = $2, brief_version = brief_version + 1, brief_updated_at = $3::timestamp, brief_updated_by = $4
WHERE id = $1 AND brief IS DISTINCT FROM $2
RETURNING brief, brief_version, brief_updated_at, brief_updated_by`;

export function briefService(sql: SqlExecutor) {
  const raw = rawOf(sql);

  async function peopleProject(caller: Caller, ref: ProjectRef) {
    const project = await memberProject(raw, caller, ref);
    if (caller.kind !== "human") throw HubError.forbidden("humans_only", "the brief is written and read by people");
    return project;
  }

  return {
    async get(caller: Caller, ref: ProjectRef): Promise<BriefView> {
      const project = await peopleProject(caller, ref);
      return view((await sql.query<BriefRow>(READ_SQL, [project.id]))[0]);
    },

    /** Sets the text (null or only whitespace: removed); the version grows only when the text changes. */
    async put(caller: Caller, ref: ProjectRef, brief: string | null): Promise<BriefView> {
      const project = await peopleProject(caller, ref);
      const next = normalizeBrief(brief);
      const [written] = await sql.query<BriefRow>(WRITE_SQL, [project.id, next, new Date().toISOString(), caller.id]);
      return view(written ?? (await sql.query<BriefRow>(READ_SQL, [project.id]))[0]);
    },
  };
}
export type BriefService = ReturnType<typeof briefService>;

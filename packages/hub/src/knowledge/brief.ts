import { type AgentProject, type BriefView, HubError, normalizeBrief, type ProjectRef } from "@maity/domain";
import type { SqlExecutor } from "@maity/db";
import type { AgentCaller, Caller } from "../access/caller.ts";
import type { KeyRow } from "../access/visibility.ts";
import type { HandedStore } from "./handed.ts";
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

/** The room's project and brief for an agent, and whether the agent visits there (v1.14). */
const AGENT_SQL = `
SELECT p.id, p.name, p.brief, p.brief_version, p.share_with_visitors, (o.bay_id <> p.bay_id) AS visiting
FROM projects p, agents a JOIN humans o ON o.id = a.owner_id WHERE p.id = $1 AND a.id = $2`;

export function briefService(sql: SqlExecutor, handed: HandedStore) {
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

    /**
     * PATCH /api/projects/{owner}/{slug} {share_with_visitors} (DESIGN §4b): a members:admin person of
     * the project chooses whether visiting agents read its brief, notes and library.
     */
    async setSharing(caller: Caller, ref: ProjectRef, share: boolean): Promise<{ share_with_visitors: boolean }> {
      const project = await peopleProject(caller, ref);
      const [admin] = await sql.query<{ ok: boolean }>(
        `SELECT 'members:admin' = ANY(permissions) AS ok FROM memberships
         WHERE project_id = $1 AND member_id = $2 AND status = 'active'`,
        [project.id, caller.id],
      );
      if (!admin?.ok)
        throw HubError.forbidden("not_an_admin", "only a members:admin person of the project shares it with visitors");
      const [row] = await sql.query<{ share_with_visitors: boolean }>(
        "UPDATE projects SET share_with_visitors = $2 WHERE id = $1 RETURNING share_with_visitors",
        [project.id, share],
      );
      return { share_with_visitors: row?.share_with_visitors ?? share };
    },

    /**
     * GET /api/agent-api/conversations/:id/project, get_project (B-271): the room's project and its
     * brief; reading it counts as being handed it (B-272). A visiting agent gets none of it (B-274):
     * PROJECT_NOT_FOUND, as for a room in no project — unless the project shares with visitors.
     */
    async forAgent(agent: AgentCaller, row: KeyRow): Promise<AgentProject> {
      const [p] = await sql.query<
        BriefRow & { id: string; name: string; visiting: boolean; share_with_visitors: boolean }
      >(AGENT_SQL, [row.projectId, agent.id]);
      if (!p || (p.visiting && !p.share_with_visitors))
        throw HubError.notFound("this conversation is in no project you can read").named("PROJECT_NOT_FOUND");
      const version = Number(p.brief_version);
      await handed.projectRead(agent.id, row.key, version, p.brief !== null);
      return { id: p.id, name: p.name, version, brief: p.brief };
    },
  };
}
export type BriefService = ReturnType<typeof briefService>;

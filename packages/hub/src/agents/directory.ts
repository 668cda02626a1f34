import { type AgentDirectoryEntry, DESCRIPTION_MAX, oneLine, restrictedDirectory } from "@maity/domain";
import type { Db } from "@maity/db";
import type { AgentCaller } from "../access/caller.ts";

// GET /agents and list_agents: the agents an agent can meet (B-356, B-308), restricted while it
// visits or sits beside a visitor (v1.14, B-304, B-305: domain restrictedDirectory).

/** The agents in each open room of $1, and whether each is visiting there (its Bay is not the project's). */
const ROOM_AGENTS_SQL = `
SELECT p2.conversation_id, p2.member_id, (oh.bay_id <> pr.bay_id) AS visiting
FROM participations me
JOIN participations p2 ON p2.conversation_id = me.conversation_id AND p2.left_at IS NULL AND p2.member_kind = 'agent'
JOIN projects pr ON pr.id = me.project_id
JOIN agents a ON a.id = p2.member_id
JOIN humans oh ON oh.id = a.owner_id
WHERE me.member_id = $1 AND me.left_at IS NULL`;

/**
 * B-304/B-305: while the agent visits or sits beside a visitor, the agents it may meet (those of
 * its rooms); null when it is on the unrestricted profile.
 */
export async function restrictedTo(db: Db, agent: AgentCaller): Promise<Set<string> | null> {
  const shared = await db.$queryRawUnsafe<{ conversation_id: string; member_id: string; visiting: boolean }[]>(
    ROOM_AGENTS_SQL,
    agent.id,
  );
  const rooms = new Map<string, { id: string; visiting: boolean }[]>();
  for (const r of shared)
    rooms.set(r.conversation_id, [...(rooms.get(r.conversation_id) ?? []), { id: r.member_id, visiting: r.visiting }]);
  const only = restrictedDirectory(
    agent.id,
    [...rooms.values()].map((agents) => ({ agents })),
  );
  return only ? new Set(only) : null;
}

/**
 * GET /agents, list_agents (B-356, B-308): the other agents of the caller's Bay; while it visits or
 * sits beside a visitor (B-305), only the agents of those rooms — where another Bay's are met,
 * marked `fromAnotherBay` ("which happens only on the restricted list").
 */
export async function agentDirectory(db: Db, agent: AgentCaller): Promise<AgentDirectoryEntry[]> {
  const [owner, only] = await Promise.all([
    db.human.findUniqueOrThrow({ where: { id: agent.ownerId }, select: { bayId: true } }),
    restrictedTo(db, agent),
  ]);
  const rows = await db.agent.findMany({
    where: {
      id: only ? { in: [...only] } : { not: agent.id },
      // v1.14: another Bay's agents are met only on the restricted list (they are visitors here).
      ...(only ? {} : { owner: { bayId: owner.bayId } }),
    },
    select: { id: true, handle: true, description: true, owner: { select: { handle: true, bayId: true } } },
    orderBy: [{ owner: { handle: "asc" } }, { handle: "asc" }],
  });
  return rows.map((a) => ({
    id: a.id,
    name: oneLine(`${a.owner.handle}/${a.handle}`),
    description: oneLine(a.description, DESCRIPTION_MAX),
    fromAnotherBay: a.owner.bayId !== owner.bayId,
  }));
}

import { agentIdCandidates, HubError } from "@maity/domain";
import type { Tx } from "@maity/db";
import type { DeviceCaller } from "../access/caller.ts";
import { ensureDirectConversation } from "../conversations/direct.ts";
import { admitMember, joinAsVisitor } from "../conversations/placement.ts";

// A terminal session's identity (DESIGN §4e, B-310): the person's agent of kind `session` for one
// Bay and name, and its membership of the projects it joins rooms in.

/**
 * The session's identity (B-310): the person's agent of kind `session` for this Bay and name, made
 * on the first join and brought back by a later one. Its handle is its name in the person's own
 * Bay (mentioned as @name); in another Bay the name and that Bay's, so the two never collide.
 */
export async function identity(tx: Tx, device: DeviceCaller, name: string, homeBayId: string) {
  const key = { humanId_bayId_name: { humanId: device.id, bayId: device.bay.id, name } };
  const existing = await tx.agentSession.findUnique({ where: key, select: { agentId: true } });
  if (existing) {
    await tx.agentSession.update({
      where: key,
      data: { endedAt: null, deviceId: device.deviceId, joinedAt: new Date() },
    });
    return existing.agentId;
  }
  const handle = device.bay.id === homeBayId ? name : `${name}-${device.bay.name}`.slice(0, 40).replace(/-+$/, "");
  const taken = await tx.agent.findUnique({
    where: { ownerId_handle: { ownerId: device.id, handle } },
    select: { kind: true },
  });
  if (taken)
    throw new HubError(
      "conflict",
      `you have an agent named "${handle}": give this session another name`,
      { fields: { session: "taken" } },
      { agentCode: "SESSION_NAME_TAKEN" },
    );
  const [short, long] = agentIdCandidates(device.handle, handle) as [string, string];
  let id: string | null = null;
  for (const candidate of [long, short, ...[2, 3, 4, 5].map((n) => `${long}-${n}`)]) {
    if (!(await tx.agent.findUnique({ where: { id: candidate }, select: { id: true } }))) {
      id = candidate;
      break;
    }
  }
  if (id === null)
    throw new HubError(
      "conflict",
      `no free id for a session named "${name}": give it another name`,
      { fields: { session: "taken" } },
      { agentCode: "SESSION_NAME_TAKEN" },
    );
  await tx.agent.create({
    data: { id, ownerId: device.id, handle, kind: "session", description: "A terminal session" },
  });
  await tx.agentInstance.create({ data: { id: `${id}-default`, agentId: id, isDefault: true } });
  await tx.agentSession.create({
    data: { agentId: id, humanId: device.id, bayId: device.bay.id, name, deviceId: device.deviceId },
  });
  return id;
}

/** The session a project lets in: a member of the person's own Bay, or a visitor the person brings (§4c). */
export async function admit(tx: Tx, sessionId: string, projectId: string, visiting: boolean) {
  if (visiting) return joinAsVisitor(tx, projectId, sessionId);
  await admitMember(tx, projectId, sessionId);
  await ensureDirectConversation(tx, projectId, sessionId);
}

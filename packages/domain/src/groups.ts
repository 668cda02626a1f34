import { GROUP_PARTICIPANTS_MAX } from "./schemas.ts";

/** §9.2 "Who takes part": the creator counts, a repeated id counts once. */
export type ParticipantsVerdict =
  | { ok: true; members: string[] }
  | { ok: false; reason: "too_few" | "too_many" | "not_a_member" | "use_direct" };

export function checkGroupParticipants(input: {
  creatorId: string;
  requested: string[];
  /** Active members of the project, with each agent's owner. */
  members: Map<string, { kind: "human" | "agent"; ownerId: string | null }>;
  /**
   * A terminal session's create_group (DESIGN §4e): a room the person opens with their session for
   * others to join — not the 1:1 a direct conversation already is.
   */
  sessionRoom?: boolean;
}): ParticipantsVerdict {
  const members = [input.creatorId, ...input.requested.filter((id) => id !== input.creatorId)].filter(
    (id, i, all) => all.indexOf(id) === i,
  );
  if (members.some((id) => !input.members.has(id))) return { ok: false, reason: "not_a_member" };
  if (members.length < 2) return { ok: false, reason: "too_few" };
  if (members.length > GROUP_PARTICIPANTS_MAX) return { ok: false, reason: "too_many" };
  if (members.length === 2 && !input.sessionRoom) {
    const other = input.members.get(members[1] ?? "");
    if (other?.kind === "agent" && other.ownerId === input.creatorId) return { ok: false, reason: "use_direct" };
  }
  return { ok: true, members };
}

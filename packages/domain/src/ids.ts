// Member ids are global and stable (DESIGN.md §1): hum-<handle>, agt-<…>.
export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

export const humanId = (handle: string): string => `hum-${handle}`;

/** The agent's short id: `agent-a` → `agt-a`; other handles keep their name (`scout` → `agt-scout`). */
export function agentIdCandidates(ownerHandle: string, handle: string): string[] {
  const short = handle.startsWith("agent-") && handle.length > 6 ? handle.slice(6) : handle;
  return [`agt-${short}`, `agt-${ownerHandle}-${short}`];
}

export const agentName = (ownerHandle: string, handle: string): string => `${ownerHandle}/${handle}`;
export const projectFullName = (owner: string, slug: string): string => `${owner}/${slug}`;
export const groupConversationId = (n: number): string => `cnv-${String(n).padStart(4, "0")}`;
export const eventId = (seq: number): string => `evt-${seq}`;

export type MemberKind = "human" | "agent";
export function memberKindOf(memberId: string): MemberKind | null {
  if (memberId.startsWith("hum-")) return "human";
  if (memberId.startsWith("agt-")) return "agent";
  return null;
}

export const PERMISSIONS = ["members:admin"] as const;
export type Permission = (typeof PERMISSIONS)[number];

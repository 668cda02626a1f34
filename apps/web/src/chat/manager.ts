"use client";
import { isManager } from "@maity/domain";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc";

/**
 * Whether the signed-in person manages this chat (§9.2 "Who manages"): the domain's one rule, with
 * the project's admins from projects.members (cached, shared with the manage dialog). The hub
 * decides again on every change; this only shows or hides what it would refuse.
 */
export function useManager(props: {
  owner: string;
  slug: string;
  me: { id: string; kind: string };
  createdBy: string | null;
  participant: boolean;
}): { manager: boolean; admins: { member_id: string }[] } {
  const trpc = useTRPC();
  const members = useQuery(trpc.projects.members.queryOptions({ owner: props.owner, slug: props.slug }));
  const admins = (members.data?.items ?? []).filter(
    (m) => m.kind === "human" && m.permissions.includes("members:admin"),
  );
  const manager = isManager({
    callerKind: props.me.kind === "human" ? "human" : "agent",
    participant: props.participant,
    creator: props.createdBy === props.me.id,
    projectAdmin: admins.some((m) => m.member_id === props.me.id),
  });
  return { manager, admins };
}

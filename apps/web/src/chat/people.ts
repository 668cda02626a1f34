import type { Named } from "../wording/chatView";

export type Participant = {
  member_id: string;
  kind: "human" | "agent";
  handle: string;
  name?: string | undefined;
  owner_id?: string | null;
};
/** A participant as domain's Named: a human's name is its handle when the view has no name (§9.2 shapes). */
export const named = (p: Participant): Named => ({
  member_id: p.member_id,
  kind: p.kind,
  name: p.name ?? p.handle,
  owner_id: p.owner_id ?? null,
});
/** Everyone the chat names: the participants, then projects.names (former participants, observers). */
export function peopleOf(participants: Participant[], names: Named[] | undefined): Map<string, Named> {
  const people = new Map<string, Named>((names ?? []).map((n) => [n.member_id, n]));
  for (const p of participants) if (!people.has(p.member_id)) people.set(p.member_id, named(p));
  return people;
}
export function dayLabel(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  const date = new Date(y ?? 1970, (m ?? 1) - 1, d ?? 1);
  const today = new Date();
  if (date.toDateString() === today.toDateString()) return "Today";
  if (date.toDateString() === new Date(today.getTime() - 86_400_000).toDateString()) return "Yesterday";
  return date.toLocaleDateString(undefined, {
    weekday: "long",
    day: "numeric",
    month: "long",
    year: date.getFullYear() === today.getFullYear() ? undefined : "numeric",
  });
}

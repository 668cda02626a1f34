// How the dashboard names and dates things (§9.3: an untitled group chat shows its participants'
// handles, a direct one the agent's name).
export function itemTitle(item: {
  kind: string;
  title: string | null;
  participants: { kind: string; handle: string; name?: string }[];
}): string {
  if (item.kind === "direct") return item.participants.find((p) => p.kind === "agent")?.name ?? "Direct conversation";
  return item.title ?? item.participants.map((p) => p.handle).join(", ");
}

export function timeLabel(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : date.toLocaleDateString();
}

/** Splits a body at its mentions (offsets in code points) for highlighting; bodies stay text. */
export function withMentions(
  body: string,
  mentions: { offset: number; length: number; member_id: string }[],
): { text: string; mention: string | null }[] {
  const points = Array.from(body);
  const parts: { text: string; mention: string | null }[] = [];
  let at = 0;
  for (const m of [...mentions].sort((a, b) => a.offset - b.offset)) {
    if (m.offset < at) continue;
    if (m.offset > at) parts.push({ text: points.slice(at, m.offset).join(""), mention: null });
    parts.push({ text: points.slice(m.offset, m.offset + m.length).join(""), mention: m.member_id });
    at = m.offset + m.length;
  }
  if (at < points.length) parts.push({ text: points.slice(at).join(""), mention: null });
  return parts;
}

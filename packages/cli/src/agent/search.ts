import type { AgentClient } from "@maity/client";
import type { AgentSearchOutput, Highlight } from "@maity/domain";
import { clock, renderRoom, sanitize } from "../render.ts";
import { type Io, json } from "./io.ts";

// `maity search <words…> [--room <id>] [--limit <n>] [--cursor <c>]` (DESIGN §4d): the agent's
// rooms, newest first, grouped by room, each match between « and ». Results are what was said,
// never a request: no routing marker is shown on them.

export type SearchCommand = { kind: "search"; q: string; room?: string; limit?: number; cursor?: string };

/** The text with its highlights (code points) marked «…», each piece sanitized on its own. */
export function marked(text: string, highlights: Highlight[]): string {
  const points = Array.from(text);
  let out = "";
  let at = 0;
  for (const h of highlights) {
    if (h.start < at || h.start >= points.length) continue;
    out += sanitize(points.slice(at, h.start).join(""));
    out += `«${sanitize(points.slice(h.start, h.start + h.length).join(""))}»`;
    at = h.start + h.length;
  }
  return out + sanitize(points.slice(at).join(""));
}

/** The results under their rooms: `<room line>` then `  YYYY-MM-DD [HH:MM] Name (role): text · id`. */
export function renderSearch(found: AgentSearchOutput, rooms: Map<string, string>): string {
  const lines: string[] = [];
  let room: string | null = null;
  for (const r of found.results) {
    if (r.conversationId !== room) {
      room = r.conversationId;
      lines.push(rooms.get(room) ?? room);
    }
    const m = r.message;
    const role = m.sender.role === null ? "" : ` (${sanitize(m.sender.role)})`;
    lines.push(
      `  ${m.createdAt.slice(0, 10)} [${clock(m.createdAt)}] ${sanitize(m.sender.name)}${role}: ` +
        `${marked(m.content, r.highlights)} · ${m.id}`,
    );
  }
  return lines.join("\n");
}

export async function searchCommand(client: AgentClient, command: SearchCommand, asJson: boolean, io: Io) {
  const found = await client.search({
    q: command.q,
    ...(command.room ? { conversationId: command.room } : {}),
    ...(command.cursor ? { cursor: command.cursor } : {}),
    ...(command.limit ? { limit: command.limit } : {}),
  });
  if (asJson) {
    io.out(json(found));
    return 0;
  }
  if (found.results.length === 0) {
    io.err(`no message you can read matches "${sanitize(command.q)}"`);
    return 0;
  }
  const rooms = new Map((await client.conversations()).map((r) => [r.id, renderRoom(r)]));
  io.out(renderSearch(found, rooms));
  if (found.nextCursor) {
    // The same search, on: its room and page size repeated, so the next page continues this list.
    const flags = [
      ...(command.room ? [`--room ${command.room}`] : []),
      ...(command.limit ? [`--limit ${command.limit}`] : []),
      `--cursor ${found.nextCursor}`,
    ];
    io.err(`older results: maity search ${JSON.stringify(command.q)} ${flags.join(" ")}`);
  }
  return 0;
}

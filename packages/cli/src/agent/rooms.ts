import type { AgentClient } from "@maity/client";
import type { AgentMessage } from "@maity/domain";
import { type RoomCursor, readState, updateState } from "../config.ts";
import { eventsOf } from "../events.ts";
import { isShown, renderLine, sanitize } from "../render.ts";
import { type Io, json, sleep } from "./io.ts";
import type { Session } from "./session.ts";

// Reading rooms: check (one look), watch (looks until something arrives) and listen (every room,
// live).

// ---- reading a room: B-093 anchor, B-094 since the cursor ----------------------------------------

export const PAGE = 200;

/** B-093: "now" is the room's newest message as the hub has it (no clock of this computer involved). */
async function anchor(client: AgentClient, conversationId: string): Promise<RoomCursor> {
  const newest = (await client.messages(conversationId, { limit: 1 })).messages[0];
  return newest ? { since: newest.createdAt, ids: [newest.id] } : { since: new Date(0).toISOString(), ids: [] };
}

/**
 * B-094: the messages after the cursor, oldest first, and the cursor after them. It asks from one
 * millisecond before the cursor's time and drops the ids already read there, so a message written
 * in the same millisecond as the last one read is not lost.
 */
async function readAfter(
  client: AgentClient,
  conversationId: string,
  cursor: RoomCursor,
): Promise<{ messages: AgentMessage[]; cursor: RoomCursor }> {
  const messages: AgentMessage[] = [];
  let { since, ids } = cursor;
  for (let page = 0; page < 100; page++) {
    const from = new Date(Date.parse(since) - 1).toISOString();
    const answer = (await client.messages(conversationId, { since: from, limit: PAGE })).messages;
    const read = new Set(ids);
    const fresh = answer.filter((m) => !read.has(m.id));
    messages.push(...fresh);
    const last = fresh.at(-1);
    if (!last) break;
    const atLast = fresh.filter((m) => m.createdAt === last.createdAt).map((m) => m.id);
    ids = last.createdAt === since ? [...ids, ...atLast] : atLast;
    since = last.createdAt;
    if (answer.length < PAGE) break;
  }
  return { messages, cursor: { since, ids } };
}

/** One check: anchor the first time (nothing printed), else read on and advance. */
export async function checkOnce(
  session: Session,
  conversationId: string,
): Promise<{ anchored: boolean; shown: AgentMessage[] }> {
  const { identity, client } = session;
  const [me, key] = [await session.me(), await session.key()];
  const cursor = readState(identity.configDir, key).cursors[conversationId];
  if (!cursor) {
    const first = await anchor(client, conversationId);
    updateState(identity.configDir, key, (state) => {
      state.cursors[conversationId] = first;
    });
    return { anchored: true, shown: [] };
  }
  const { messages, cursor: next } = await readAfter(client, conversationId, cursor);
  // The cursor moves past own and deleted messages too: they are read, just not shown.
  if (messages.length) {
    updateState(identity.configDir, key, (state) => {
      state.cursors[conversationId] = next;
    });
  }
  return { anchored: false, shown: messages.filter((m) => isShown(m, me.id)) };
}

/**
 * B-091 B-092: poll every `interval` s until something is printed (exit 0) or `timeout` s pass
 * quietly (exit 2: "watch again"). The first watch of a room anchors first (B-093), so only what
 * arrives from then on counts.
 */
export async function watch(
  session: Session,
  conversationId: string,
  interval: number,
  timeout: number,
  asJson: boolean,
  io: Io,
): Promise<number> {
  const me = await session.me();
  const deadline = Date.now() + timeout * 1000;
  for (;;) {
    const { shown } = await checkOnce(session, conversationId);
    if (shown.length) {
      if (asJson) io.out(json({ conversationId, messages: shown }));
      else io.out(shown.map((m) => renderLine(m, me.id)).join("\n"));
      return 0;
    }
    if (io.signal.aborted || Date.now() + interval * 1000 > deadline) break;
    await sleep(interval * 1000, io.signal);
    if (io.signal.aborted) break;
  }
  if (asJson) io.out(json({ conversationId, messages: [], timedOut: true }));
  return 2;
}

/** Every room, one line per message (its conversation id first), until Ctrl-C. */
export async function listen(session: Session, asJson: boolean, io: Io): Promise<number> {
  const me = await session.me();
  io.err(`listening as ${sanitize(me.name)} (${me.id}) on ${session.identity.baseUrl}: Ctrl-C to stop`);
  const events = eventsOf(session.client)({ signal: io.signal, onNotice: (line) => io.err(line) });
  for await (const event of events) {
    if (!isShown(event.message, me.id)) continue;
    if (asJson) io.out(JSON.stringify(event));
    else io.out(`${event.conversationId} ${renderLine(event.message, me.id)}`);
  }
  return 0;
}

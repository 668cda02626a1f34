import type { AgentClient } from "@maity/client";
import { type Env, envOf, readState, updateState } from "../config.ts";
import { HOOK_MIN_INTERVAL_MS, hookAnswer, hookReason, isContextEvent, parseHookInput, type Waiting } from "../hook.ts";
import { isShown } from "../render.ts";
import type { Io } from "./io.ts";
import { PAGE } from "./rooms.ts";
import type { Session } from "./session.ts";

// The hook command: what waits for this agent since the last hook run (the hook's input and answer
// are ../hook.ts).

/**
 * The messages routed to this agent (shouldRespond) in any room since the last hook run, from one
 * /updates call (wait=0) on a cursor kept beside the credentials. The first run anchors at now.
 * Prints nothing when nothing waits; never fails the IDE's turn over a busy hub (429: silent).
 */
export async function hook(session: Session, io: Io): Promise<number> {
  const input = parseHookInput(await io.readStdin());
  // A Stop that follows a blocked Stop: do not look (the cursor stays, the messages keep).
  if (input.stop_hook_active && !isContextEvent(input)) return 0;
  const { client, identity } = session;
  const me = await session.me();
  const key = await session.key();
  const saved = readState(identity.configDir, key).hook;
  const now = Date.now();
  if (saved && isContextEvent(input) && now - Date.parse(saved.at) < hookInterval(io.env)) return 0;
  const waiting: Waiting[] = [];
  let cursor: string;
  try {
    if (!saved) {
      cursor = (await client.updates({ wait: 0 })).cursor;
    } else {
      cursor = saved.cursor;
      try {
        for (let round = 0; round < 10; round++) {
          const answer = await client.updates({ cursor, wait: 0 });
          for (const event of answer.events) {
            if (event.message.shouldRespond && isShown(event.message, me.id)) {
              waiting.push({
                conversationId: event.conversationId,
                title: event.conversation.title,
                message: event.message,
              });
            }
          }
          cursor = answer.cursor;
          if (!answer.events.length) break;
        }
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === "CURSOR_EXPIRED")) throw error;
        // B-145: past the replay window, catch up room by room since the last run, then start at now.
        waiting.push(...(await catchUp(client, me.id, new Date(Date.parse(saved.at) - 2_000).toISOString())));
        cursor = (await client.updates({ wait: 0 })).cursor;
      }
    }
  } catch (error) {
    if (error instanceof Error && "status" in error && error.status === 429) {
      io.err("maity hook: the hub asked to slow down; looking again at the next hook");
      return 0;
    }
    throw error;
  }
  updateState(identity.configDir, key, (state) => {
    state.hook = { cursor, at: new Date(now).toISOString() };
  });
  if (!waiting.length) return 0;
  const answer = hookAnswer(input, hookReason(waiting, me));
  if (answer) io.out(JSON.stringify(answer));
  return 0;
}

/** MAITY_HOOK_INTERVAL: seconds between two looks on PostToolUse (default 5). */
function hookInterval(env: Env): number {
  const value = envOf(env, "HOOK_INTERVAL");
  const seconds = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : HOOK_MIN_INTERVAL_MS;
}

async function catchUp(client: AgentClient, me: string, since: string): Promise<Waiting[]> {
  const waiting: Waiting[] = [];
  for (const room of await client.conversations()) {
    const { messages } = await client.messages(room.id, { since, limit: PAGE });
    for (const m of messages)
      if (m.shouldRespond && isShown(m, me)) waiting.push({ conversationId: room.id, title: room.title, message: m });
  }
  return waiting;
}

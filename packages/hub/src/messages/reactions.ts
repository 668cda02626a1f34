import {
  type AgentReaction,
  agentReactions,
  checkEmoji,
  eventId,
  HubError,
  maityReactions,
  type ProjectRef,
  type Reaction,
  seqOfMessageId,
  seqOfText,
} from "@maity/domain";
import type { Db } from "@maity/db";
import { refuseClosed, refuseObserver, resolveConversation } from "../access/resolve.ts";
import type { AgentService } from "../agents/service.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { loadReactions } from "./media.ts";
import { type KeyRow, observersOf, readParticipants } from "../access/visibility.ts";
import { publishTyping } from "../delivery/typing.ts";

// Reactions: a participant of a room — human or agent, history included — puts an emoji
// on a message and takes it back; both idempotent. They change no seq of the log and emit no
// /updates event (004 §11: "reactions emit no events"); the dashboard hears `message_changed`.

/** An agent's 👀 on a message says it is on it: its typing indicator starts, as POST …/typing does. */
const LOOKING = "👀";

/**
 * Live: something on message `seq` changed; every current reader of the chat — its
 * participants and its observers (owners of its agents reading along) — reloads it.
 */
export async function publishChanged(
  db: Db,
  bus: LiveBus,
  row: KeyRow,
  seq: number,
  what: "poll" | "reactions" | "approval",
): Promise<void> {
  const participants = (await readParticipants(db, [row.key])).get(row.key) ?? [];
  bus.publish({
    type: "message_changed",
    seq,
    conversationId: row.id,
    project: { owner: row.projectOwner, slug: row.projectSlug },
    audience: [...participants.map((p) => p.memberId), ...observersOf(participants)],
    what,
  });
}

export function reactionService(db: Db, bus: LiveBus, agents: AgentService) {
  const emojiOf = (value: string): string => {
    const emoji = checkEmoji(value);
    if (emoji === null)
      throw HubError.invalid({ emoji: "not_an_emoji" }, "emoji: not one emoji (a pictograph, a flag or a keycap)");
    return emoji;
  };

  /** A message of this room the caller reads; a redacted one takes no reactions. */
  async function target(row: KeyRow, seq: number | null, floor: number): Promise<number> {
    const event =
      seq === null || seq <= floor
        ? null
        : await db.event.findFirst({
            where: { seq, conversationId: row.key, kind: "message" },
            select: { seq: true, redacted: true },
          });
    if (!event) throw HubError.notFound("message not found");
    if (event.redacted)
      throw new HubError(
        "conflict",
        "the message was redacted: it takes no reactions",
        { reason: "redacted" },
        { agentCode: "MESSAGE_DELETED" },
      );
    return event.seq;
  }

  /** Adds or takes back one row; tells the readers only when something changed. */
  async function change(memberId: string, row: KeyRow, seq: number, emoji: string, add: boolean): Promise<boolean> {
    const changed = add
      ? (await db.reaction.createMany({ data: [{ eventSeq: seq, memberId, emoji }], skipDuplicates: true })).count
      : (await db.reaction.deleteMany({ where: { eventSeq: seq, memberId, emoji } })).count;
    if (changed > 0) await publishChanged(db, bus, row, seq, "reactions");
    return changed > 0;
  }

  async function maity(
    caller: Caller,
    ref: ProjectRef,
    conversationId: string,
    seqParam: string,
    emoji: string,
    add: boolean,
  ) {
    const checked = emojiOf(emoji);
    const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
    // An observer reads along and does not react (§9.2); a closed chat takes nothing.
    refuseObserver(row);
    refuseClosed(row);
    const seq = await target(row, seqOfText(seqParam), 0);
    await change(caller.id, row, seq, checked, add);
    return maityReactions((await loadReactions(db, [seq])).get(seq) ?? [], caller.id);
  }

  async function agent(agentCaller: AgentCaller, key: string, messageId: string, emoji: string, add: boolean) {
    const checked = emojiOf(emoji);
    // Not in the room → 404, like send (B-116).
    const row = await agents.room(agentCaller, key, true);
    if (!row) throw HubError.notFound("conversation not found");
    refuseClosed(row);
    const seq = await target(row, seqOfMessageId(messageId), await agents.historyFloor(agentCaller, row));
    await change(agentCaller.id, row, seq, checked, add);
    if (add && checked === LOOKING) await publishTyping(db, bus, row, agentCaller.id);
    return { messageId: eventId(seq), reactions: agentReactions((await loadReactions(db, [seq])).get(seq) ?? []) };
  }

  return {
    /** PUT …/messages/{seq}/reactions/{emoji}: the message's reactions after. */
    add: (caller: Caller, ref: ProjectRef, conversationId: string, seq: string, emoji: string): Promise<Reaction[]> =>
      maity(caller, ref, conversationId, seq, emoji, true),
    remove: (
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      seq: string,
      emoji: string,
    ): Promise<Reaction[]> => maity(caller, ref, conversationId, seq, emoji, false),
    /** POST /agent-api/conversations/:id/messages/:messageId/reactions. */
    react: (a: AgentCaller, key: string, messageId: string, emoji: string) => agent(a, key, messageId, emoji, true),
    unreact: (a: AgentCaller, key: string, messageId: string, emoji: string) => agent(a, key, messageId, emoji, false),
  };
}
export type ReactionService = ReturnType<typeof reactionService>;
export type { AgentReaction };

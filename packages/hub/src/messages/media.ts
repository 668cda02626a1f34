import {
  type AgentMessage,
  type AgentPoll,
  agentReactions,
  maityPollOf,
  maityReactions,
  type Poll,
  type ReactionRow,
  seqOfMessageId,
  tallyPoll,
} from "@maity/domain";
import type { Db } from "@maity/db";

// What a message carries beside its row (004 v1.12 polls, reactions): the loaders every read path
// uses — the Maity and agent reads, the write's answer, the log — so reads never import a service.

export const pollSelect = {
  id: true,
  eventSeq: true,
  conversationId: true,
  askedById: true,
  question: true,
  options: true,
  allowMultiple: true,
  closedAt: true,
} as const;
export type PollRow = {
  id: string;
  eventSeq: number;
  conversationId: string;
  askedById: string;
  question: string;
  options: unknown;
  allowMultiple: boolean;
  closedAt: Date | null;
};
export type VoteRow = { voterId: string; optionIndex: number; at: Date };

export const optionsOf = (poll: PollRow): string[] => (Array.isArray(poll.options) ? (poll.options as string[]) : []);

/** One reader's view of polls: participants vote, observers only read. */
export type PollReader = { id: string; participant: boolean };

export const tallyOf = (poll: PollRow, votes: VoteRow[], reader: PollReader): AgentPoll =>
  tallyPoll({ id: poll.id, allowMultiple: poll.allowMultiple, closed: poll.closedAt !== null }, votes, reader);

export const maityOf = (poll: PollRow, votes: VoteRow[], reader: PollReader): Poll =>
  maityPollOf(tallyOf(poll, votes, reader), {
    question: poll.question,
    options: optionsOf(poll),
    askedBy: poll.askedById,
  });

/**
 * The polls of a page of messages with their votes, and whether the reader is a current participant
 * of each poll's room: two statements for the page, never one per message.
 */
async function loadPolls(db: Db, seqs: number[], readerId: string) {
  const polls = seqs.length
    ? await db.poll.findMany({
        where: { eventSeq: { in: [...new Set(seqs)] } },
        select: { ...pollSelect, votes: { select: { voterId: true, optionIndex: true, at: true } } },
      })
    : [];
  const rooms = [...new Set(polls.map((p) => p.conversationId))];
  const present = rooms.length
    ? await db.participation.findMany({
        // A closed chat takes no votes: its participants read the tally with canVote false.
        where: { conversationId: { in: rooms }, memberId: readerId, leftAt: null, conversation: { closedAt: null } },
        select: { conversationId: true },
      })
    : [];
  const inRoom = new Set(present.map((p) => p.conversationId));
  return new Map(
    polls.map((p) => [p.eventSeq, { poll: p, reader: { id: readerId, participant: inRoom.has(p.conversationId) } }]),
  );
}

/**
 * A page of Maity messages (or events) with each poll message's `poll` and each message's
 * `reactions`, as this reader sees them. A redacted message carries neither.
 */
export async function withMedia<T extends { seq: number; redacted?: boolean }>(
  db: Db,
  readerId: string,
  items: T[],
): Promise<T[]> {
  const seqs = items.filter((m) => !m.redacted).map((m) => m.seq);
  if (seqs.length === 0) return items;
  const [polls, reactions] = await Promise.all([loadPolls(db, seqs, readerId), loadReactions(db, seqs)]);
  return items.map((m) => {
    if (m.redacted) return m;
    const poll = polls.get(m.seq);
    const rows = reactions.get(m.seq);
    return {
      ...m,
      ...(poll ? { poll: maityOf(poll.poll, poll.poll.votes, poll.reader) } : {}),
      ...(rows?.length ? { reactions: maityReactions(rows, readerId) } : {}),
    };
  });
}

/** The agent REST messages of a page with `poll` (B-234, B-235) and `reactions`; events stay without (B-132). */
export async function withAgentMedia(db: Db, readerId: string, messages: AgentMessage[]): Promise<AgentMessage[]> {
  const seqOf = (m: AgentMessage) => (m.deletedAt === null ? seqOfMessageId(m.id) : null);
  const seqs = messages.map(seqOf).filter((s): s is number => s !== null);
  if (seqs.length === 0) return messages;
  const [polls, reactions] = await Promise.all([loadPolls(db, seqs, readerId), loadReactions(db, seqs)]);
  return messages.map((m) => {
    const seq = seqOf(m);
    if (seq === null) return m;
    const poll = polls.get(seq);
    return {
      ...m,
      reactions: agentReactions(reactions.get(seq) ?? []),
      ...(poll ? { poll: tallyOf(poll.poll, poll.poll.votes, poll.reader) } : {}),
    };
  });
}

/** One statement: the reactions of the given messages, by seq. */
export async function loadReactions(db: Db, seqs: number[]): Promise<Map<number, ReactionRow[]>> {
  const bySeq = new Map<number, ReactionRow[]>();
  if (seqs.length === 0) return bySeq;
  const rows = await db.reaction.findMany({
    where: { eventSeq: { in: [...new Set(seqs)] } },
    select: { eventSeq: true, memberId: true, emoji: true, at: true },
    orderBy: [{ at: "asc" }, { memberId: "asc" }],
  });
  for (const r of rows) bySeq.set(r.eventSeq, [...(bySeq.get(r.eventSeq) ?? []), r]);
  return bySeq;
}

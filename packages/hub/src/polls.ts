import { randomBytes } from "node:crypto";
import {
  type AgentMessage,
  type AgentPoll,
  agentReactions,
  checkPoll,
  checkVote,
  HubError,
  isHubError,
  maityPollOf,
  maityReactions,
  type Message,
  type Poll,
  type PollRefusal,
  type ProjectRef,
  pollFallback,
  seqOfMessageId,
  tallyPoll,
  voteChanges,
} from "@maity/domain";
import type { Db } from "@maity/db";
import { refuseClosed, refuseNonManager, refuseObserver, resolveConversation } from "./access.ts";
import type { AgentService } from "./agents.ts";
import type { LiveBus } from "./bus.ts";
import type { AgentCaller, Caller } from "./caller.ts";
import type { MessagesService } from "./messages.ts";
import { loadReactions, publishChanged } from "./reactions.ts";
import type { KeyRow } from "./read.ts";

// Polls (004 v1.12, B-226…B-240): the card.poll message and its Poll row are one write; votes
// replace the voter's set in one transaction. The rules are domain's (polls.ts); here the I/O.

const pollSelect = {
  id: true,
  eventSeq: true,
  conversationId: true,
  askedById: true,
  question: true,
  options: true,
  allowMultiple: true,
  closedAt: true,
} as const;
type PollRow = {
  id: string;
  eventSeq: number;
  conversationId: string;
  askedById: string;
  question: string;
  options: unknown;
  allowMultiple: boolean;
  closedAt: Date | null;
};
type VoteRow = { voterId: string; optionIndex: number; at: Date };

const optionsOf = (poll: PollRow): string[] => (Array.isArray(poll.options) ? (poll.options as string[]) : []);

/** B-230: no such poll and a poll outside the caller's rooms read the same. */
const pollNotFound = () => new HubError("not_found", "poll not found", {}, { agentCode: "POLL_NOT_FOUND" });

/** A domain refusal as the hub's error: 400 with the protocol's code and the field named (agent or Maity words). */
function refused(r: PollRefusal, surface: "agent" | "maity"): HubError {
  const field = surface === "maity" && r.field === "optionIndexes" ? "option_indexes" : r.field;
  return HubError.invalid({ [field]: r.code.toLowerCase() }, r.message, { agentCode: r.code });
}

/** One reader's view of polls: participants vote, observers only read. */
export type PollReader = { id: string; participant: boolean };

const tallyOf = (poll: PollRow, votes: VoteRow[], reader: PollReader): AgentPoll =>
  tallyPoll({ id: poll.id, allowMultiple: poll.allowMultiple, closed: poll.closedAt !== null }, votes, reader);

const maityOf = (poll: PollRow, votes: VoteRow[], reader: PollReader): Poll =>
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

const newPollId = (): string => `pol-${BigInt(`0x${randomBytes(12).toString("hex")}`).toString(36)}`;

export function pollService(db: Db, bus: LiveBus, messages: MessagesService, agents: AgentService) {
  async function find(pollId: string): Promise<(PollRow & { redacted: boolean }) | null> {
    if (!/^pol-[a-z0-9]{1,40}$/.test(pollId)) return null;
    const poll = await db.poll.findUnique({ where: { id: pollId }, select: pollSelect });
    if (!poll) return null;
    const event = await db.event.findUnique({ where: { seq: poll.eventSeq }, select: { redacted: true } });
    return { ...poll, redacted: event?.redacted ?? true };
  }

  /** The poll in a room the agent is in, within its readable history; else POLL_NOT_FOUND (B-230). */
  async function forAgent(agent: AgentCaller, pollId: string): Promise<{ poll: PollRow; row: KeyRow }> {
    const poll = await find(pollId);
    const row = poll && !poll.redacted ? await agents.room(agent, poll.conversationId, true) : null;
    if (!poll || !row || poll.eventSeq <= (await agents.historyFloor(agent, row))) throw pollNotFound();
    return { poll, row };
  }

  /** The poll in a chat of this project the caller reads (participant or observer); else not found. */
  async function forMember(caller: Caller, ref: ProjectRef, pollId: string): Promise<{ poll: PollRow; row: KeyRow }> {
    const poll = await find(pollId);
    const conversation =
      poll && !poll.redacted
        ? await db.conversation.findUnique({ where: { id: poll.conversationId }, select: { publicId: true } })
        : null;
    const row = conversation
      ? await resolveConversation(db, caller, ref, conversation.publicId).catch((error: unknown) => {
          if (isHubError(error) && error.code === "not_found") return null;
          throw error;
        })
      : null;
    // A direct chat's public id repeats across projects: the chat resolved must be the poll's.
    if (!poll || !row || row.key !== poll.conversationId) throw pollNotFound();
    return { poll, row };
  }

  async function votesOf(pollId: string): Promise<VoteRow[]> {
    return db.pollVote.findMany({ where: { pollId }, select: { voterId: true, optionIndex: true, at: true } });
  }

  /** B-226: the card.poll message and its Poll row, one write (nothing half-written). */
  async function create(
    caller: Caller,
    row: KeyRow,
    input: { question: string; options: string[]; allowMultiple: boolean },
    surface: "agent" | "maity",
  ) {
    const checked = checkPoll(input.question, input.options);
    if ("code" in checked) throw refused(checked, surface);
    const id = newPollId();
    const payload = {
      pollId: id,
      question: checked.question,
      options: checked.options,
      askedBy: caller.id,
      allowMultiple: input.allowMultiple,
    };
    const written = await messages.writeIn(caller, row, {
      // B-239: the fallback numbers the answers from one.
      body: pollFallback(checked.question, checked.options, input.allowMultiple),
      metadata: { type: "card.poll" },
      card: { type: "card.poll", payload },
      within: async (tx, seq, sentAt) => {
        await tx.query(
          `INSERT INTO polls (id, event_seq, conversation_id, asked_by_id, question, options, allow_multiple, created_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::timestamp)`,
          [
            id,
            seq,
            row.key,
            caller.id,
            checked.question,
            JSON.stringify(checked.options),
            input.allowMultiple,
            sentAt.toISOString(),
          ],
        );
      },
    });
    const poll: PollRow = {
      id,
      eventSeq: written.message.seq,
      conversationId: row.key,
      askedById: caller.id,
      question: checked.question,
      options: checked.options,
      allowMultiple: input.allowMultiple,
      closedAt: null,
    };
    // The dashboard's open chats reload the message to show its tally.
    await publishChanged(db, bus, row, poll.eventSeq, "poll");
    return { written, poll };
  }

  /** B-228, B-229: the voter's complete set replaces the held one; the same set changes nothing (not `at`). */
  async function vote(voterId: string, poll: PollRow, row: KeyRow, indexes: number[], surface: "agent" | "maity") {
    refuseObserver(row);
    refuseClosed(row);
    const closed = () =>
      new HubError("conflict", "the poll is closed", { reason: "poll_closed" }, { agentCode: "POLL_CLOSED" });
    if (poll.closedAt) throw closed();
    const set = checkVote({ options: optionsOf(poll), allowMultiple: poll.allowMultiple }, indexes);
    if (!Array.isArray(set)) throw refused(set, surface);
    const changed = await db.$transaction(async (tx) => {
      // One voter's sets are replaced one at a time, and never after the poll closed.
      const [locked] = await tx.$queryRawUnsafe<{ closed_at: Date | null }[]>(
        "SELECT closed_at FROM polls WHERE id = $1 FOR UPDATE",
        poll.id,
      );
      if (locked?.closed_at) throw closed();
      const held = (
        await tx.pollVote.findMany({ where: { pollId: poll.id, voterId }, select: { optionIndex: true } })
      ).map((v) => v.optionIndex);
      if (!voteChanges(held, set)) return false;
      await tx.pollVote.deleteMany({ where: { pollId: poll.id, voterId, optionIndex: { notIn: set } } });
      const added = set.filter((i) => !held.includes(i));
      if (added.length)
        await tx.pollVote.createMany({
          data: added.map((optionIndex) => ({ pollId: poll.id, voterId, optionIndex, at: new Date() })),
        });
      return true;
    });
    if (changed) await publishChanged(db, bus, row, poll.eventSeq, "poll");
    return votesOf(poll.id);
  }

  return {
    /** POST /agent-api/polls: 201 the agent message with its (empty) tally. */
    async agentCreate(
      agent: AgentCaller,
      input: { conversationId: string; question: string; options: string[]; allowMultiple?: boolean | undefined },
    ): Promise<AgentMessage> {
      const row = await agents.room(agent, input.conversationId, true);
      if (!row) throw HubError.notFound("conversation not found");
      const { written, poll } = await create(
        agent,
        row,
        { ...input, allowMultiple: input.allowMultiple ?? false },
        "agent",
      );
      return { ...written.agentMessage, poll: tallyOf(poll, [], { id: agent.id, participant: true }) };
    },
    async agentVote(agent: AgentCaller, pollId: string, indexes: number[]): Promise<AgentPoll> {
      const { poll, row } = await forAgent(agent, pollId);
      return tallyOf(poll, await vote(agent.id, poll, row, indexes, "agent"), { id: agent.id, participant: true });
    },
    async agentGet(agent: AgentCaller, pollId: string): Promise<AgentPoll> {
      const { poll, row } = await forAgent(agent, pollId);
      return tallyOf(poll, await votesOf(poll.id), { id: agent.id, participant: row.closedAt === null });
    },

    /** POST …/conversations/{id}/polls: 201 the Maity message with its card and poll. */
    async create(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      input: { question: string; options: string[]; allow_multiple?: boolean | undefined },
    ): Promise<Message> {
      const row = await resolveConversation(db, caller, ref, conversationId, { lean: true });
      const allowMultiple = input.allow_multiple ?? false;
      const { written, poll } = await create(caller, row, { ...input, allowMultiple }, "maity");
      return { ...written.message, poll: maityOf(poll, [], { id: caller.id, participant: true }) };
    },
    async vote(caller: Caller, ref: ProjectRef, pollId: string, indexes: number[]): Promise<Poll> {
      const { poll, row } = await forMember(caller, ref, pollId);
      return maityOf(poll, await vote(caller.id, poll, row, indexes, "maity"), { id: caller.id, participant: true });
    },
    async get(caller: Caller, ref: ProjectRef, pollId: string): Promise<Poll> {
      const { poll, row } = await forMember(caller, ref, pollId);
      const participant = row.access !== "observer" && row.closedAt === null;
      return maityOf(poll, await votesOf(poll.id), { id: caller.id, participant });
    },
    /** OQ-B-25: the asker (a human) or a manager of the chat closes a poll, from the app; agents do not. */
    async close(caller: Caller, ref: ProjectRef, pollId: string): Promise<Poll> {
      const { poll, row } = await forMember(caller, ref, pollId);
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "only people close a poll (OQ-B-25)");
      refuseObserver(row);
      if (caller.id !== poll.askedById) await refuseNonManager(db, caller, row);
      if (!poll.closedAt) {
        const closed = await db.poll.updateMany({
          where: { id: poll.id, closedAt: null },
          data: { closedAt: new Date() },
        });
        if (closed.count > 0) await publishChanged(db, bus, row, poll.eventSeq, "poll");
      }
      const after = await db.poll.findUniqueOrThrow({ where: { id: poll.id }, select: pollSelect });
      return maityOf(after, await votesOf(poll.id), { id: caller.id, participant: row.closedAt === null });
    },
  };
}
export type PollService = ReturnType<typeof pollService>;

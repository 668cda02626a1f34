import { randomBytes } from "node:crypto";
import {
  type AgentMessage,
  type AgentPoll,
  checkPoll,
  checkVote,
  HubError,
  isHubError,
  type Message,
  type Poll,
  type PollRefusal,
  type ProjectRef,
  pollFallback,
  voteChanges,
} from "@maity/domain";
import type { Db } from "@maity/db";
import { refuseClosed, refuseNonManager, refuseObserver, resolveConversation } from "../access/resolve.ts";
import type { AgentService } from "../agents/service.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { AgentCaller, Caller } from "../access/caller.ts";
import type { MessagesService } from "./service.ts";
import { maityOf, optionsOf, type PollRow, pollSelect, tallyOf, type VoteRow } from "./media.ts";
import { publishChanged } from "./reactions.ts";
import type { KeyRow } from "../access/visibility.ts";

// Polls (004 v1.12, B-226…B-240): the card.poll message and its Poll row are one write; votes
// replace the voter's set in one transaction. The rules are domain's (polls.ts); here the I/O.

/** B-230: no such poll and a poll outside the caller's rooms read the same. */
const pollNotFound = () => new HubError("not_found", "poll not found", {}, { agentCode: "POLL_NOT_FOUND" });

/** A domain refusal as the hub's error: 400 with the protocol's code and the field named (agent or Maity words). */
function refused(r: PollRefusal, surface: "agent" | "maity"): HubError {
  const field = surface === "maity" && r.field === "optionIndexes" ? "option_indexes" : r.field;
  return HubError.invalid({ [field]: r.code.toLowerCase() }, r.message, { agentCode: r.code });
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

import {
  type AgentOperation,
  type AgentOperationName,
  type AgentOperationOutput,
  agentOperations as ops,
  emojiInput,
  messageSchema,
  pollCreateInput,
  pollSchema,
  pollVoteInput,
  projectRef,
  reactionSchema,
  seqParam,
  text,
} from "@maity/domain";
import { z } from "zod";
import { agentProcedure, authedProcedure, router } from "../trpc.ts";

// Polls (004 v1.12, B-226…B-240) and reactions on both surfaces: the Maity routes and
// the dashboard's tRPC procedures (`polls.*`, `reactions.*`), and the agent API's operations
// (spread into the agent router). Handlers only map wire shapes; hub.polls / hub.reactions decide.

const P = "/api/projects/{owner}/{slug}";
const C = `${P}/conversations/{conversation_id}`;
const conversationId = text("a string").min(1, "required").max(100, "at most 100 characters");
const pollId = text("a poll id").min(1, "required").max(100, "at most 100 characters");
const pollInput = z.strictObject({ ...projectRef.shape, poll_id: pollId });
const reactionInput = z.strictObject({
  ...projectRef.shape,
  conversation_id: conversationId,
  seq: seqParam,
  emoji: emojiInput,
});

export const pollsRouter = router({
  create: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${C}/polls`,
        status: 201,
        summary: "Put a poll in a chat (v1.12): 2–10 distinct answers; 201 the card.poll message with its poll",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationId, ...pollCreateInput.shape }))
    .output(messageSchema)
    .mutation(({ ctx, input }) =>
      ctx.hub.polls.create(ctx.caller, input, input.conversation_id, {
        question: input.question,
        options: input.options,
        allow_multiple: input.allow_multiple,
      }),
    ),
  vote: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/polls/{poll_id}/vote`,
        summary: "Cast, change or withdraw your vote: the complete set of zero-based indexes ([] withdraws)",
      },
    })
    .input(pollInput.extend(pollVoteInput.shape))
    .output(pollSchema)
    .mutation(({ ctx, input }) => ctx.hub.polls.vote(ctx.caller, input, input.poll_id, input.option_indexes)),
  close: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/polls/{poll_id}/close`,
        summary: "Close a poll (its asker or a manager of the chat, OQ-B-25); closing twice changes nothing",
      },
    })
    .input(pollInput)
    .output(pollSchema)
    .mutation(({ ctx, input }) => ctx.hub.polls.close(ctx.caller, input, input.poll_id)),
  get: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/polls/{poll_id}`, summary: "A poll as you see it (v1.12)" } })
    .input(pollInput)
    .output(pollSchema)
    .query(({ ctx, input }) => ctx.hub.polls.get(ctx.caller, input, input.poll_id)),
});

export const reactionsRouter = router({
  add: authedProcedure
    .meta({
      rest: {
        method: "PUT",
        path: `${C}/messages/{seq}/reactions/{emoji}`,
        summary: "React to a message with an emoji (idempotent); answers the message's reactions",
      },
    })
    .input(reactionInput)
    .output(z.array(reactionSchema))
    .mutation(({ ctx, input }) =>
      ctx.hub.reactions.add(ctx.caller, input, input.conversation_id, String(input.seq), input.emoji),
    ),
  remove: authedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: `${C}/messages/{seq}/reactions/{emoji}`,
        summary: "Take your reaction back (idempotent); answers the message's reactions",
      },
    })
    .input(reactionInput)
    .output(z.array(reactionSchema))
    .mutation(({ ctx, input }) =>
      ctx.hub.reactions.remove(ctx.caller, input, input.conversation_id, String(input.seq), input.emoji),
    ),
});

type Out<K extends AgentOperationName> = Promise<AgentOperationOutput<K>>;
const operation = <O extends AgentOperation>(op: O) => agentProcedure.meta({ agent: op }).input(op.input as O["input"]);

/** The agent API's poll and reaction operations, spread into the agent router (routers/agent.ts). */
export const agentPollProcedures = {
  pollCreate: operation(ops.pollCreate).mutation(
    ({ ctx, input }): Out<"pollCreate"> => ctx.hub.polls.agentCreate(ctx.caller, input),
  ),
  pollVote: operation(ops.pollVote).mutation(
    ({ ctx, input }): Out<"pollVote"> => ctx.hub.polls.agentVote(ctx.caller, input.pollId, input.optionIndexes),
  ),
  pollGet: operation(ops.pollGet).query(
    ({ ctx, input }): Out<"pollGet"> => ctx.hub.polls.agentGet(ctx.caller, input.pollId),
  ),
  react: operation(ops.react).mutation(
    ({ ctx, input }): Out<"react"> =>
      ctx.hub.reactions.react(ctx.caller, input.conversationId, input.messageId, input.emoji),
  ),
  unreact: operation(ops.unreact).mutation(
    ({ ctx, input }): Out<"unreact"> =>
      ctx.hub.reactions.unreact(ctx.caller, input.conversationId, input.messageId, input.emoji),
  ),
};

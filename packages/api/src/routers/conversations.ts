import {
  HubError,
  addParticipantInput,
  conversationPage,
  conversationSchema,
  createGroupInput,
  groupViewSchema,
  listConversationsQuery,
  meatProxyInput,
  meConversationPage,
  participationSchema,
  projectRef,
  updateGroupInput,
} from "@maity/domain";
import { z } from "zod";
import { authedProcedure, router } from "../trpc.ts";
import {
  C,
  conversationIdSchema,
  conversationInput,
  direction,
  idempotencyKey,
  noContent,
  P,
  participantId,
  pick,
} from "./inputs.ts";

// Conversations (§9.1, §9.2, §9.3): the lists, one conversation, group chats created and changed,
// pins and the meat proxy; and a group chat's participants.

const createGroupOutput = z.object({ replayed: z.boolean(), conversation: groupViewSchema });

const GROUP_CHANGES = [
  "title",
  "reply_policy",
  "designated_agent_id",
  "max_agent_rounds",
  "accept_token_cost",
  "custom_rules",
] as const;

export const conversationsRouter = router({
  list: authedProcedure
    .meta({
      rest: { method: "GET", path: `${P}/conversations`, summary: "The conversation list of a project (§9.3)" },
    })
    .input(z.strictObject({ ...projectRef.shape, ...listConversationsQuery.shape, direction }))
    .output(conversationPage)
    .query(({ ctx, input }) =>
      ctx.hub.conversations.list(ctx.caller, input, pick(input, ["observed", "limit", "cursor"])),
    ),
  mine: authedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/me/conversations",
        summary: "Every conversation across the caller's projects (§9.3)",
      },
    })
    .input(z.strictObject({ ...listConversationsQuery.shape, direction }).prefault({}))
    .output(meConversationPage)
    .query(({ ctx, input }) => ctx.hub.conversations.mine(ctx.caller, pick(input, ["observed", "limit", "cursor"]))),
  get: authedProcedure
    .meta({
      rest: {
        method: "GET",
        path: C,
        summary: "A conversation: the direct item (§9.1) or the group chat view (§9.2)",
      },
    })
    .input(conversationInput)
    .output(conversationSchema)
    .query(({ ctx, input }) => ctx.hub.conversations.get(ctx.caller, input, input.conversation_id)),
  create: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/conversations`,
        status: 201,
        summary: "Create a group chat (§9.2); a replay with the same Idempotency-Key answers 200",
        headers: { "idempotency-key": "idempotency_key" },
        respond: (out: z.infer<typeof createGroupOutput>) => ({
          status: out.replayed ? 200 : 201,
          body: out.conversation,
        }),
        responseSchema: groupViewSchema,
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...createGroupInput.shape, idempotency_key: idempotencyKey }))
    .output(createGroupOutput)
    .mutation(async ({ ctx, input }) => {
      const { status, view } = await ctx.hub.groups.create(
        ctx.caller,
        input,
        pick(input, ["title", "participants", "wake"]),
        input.idempotency_key ?? null,
      );
      return { replayed: status === 200, conversation: view };
    }),
  update: authedProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: C,
        summary: "Rename a group chat (§9.2), set its reply policy and custom rules (004 §4)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...updateGroupInput.shape }))
    .output(groupViewSchema)
    .mutation(({ ctx, input }) => {
      // updateGroupInput's own rule, once the fields themselves passed: something to change.
      const change = pick(input, GROUP_CHANGES);
      if (Object.keys(change).length === 0) throw HubError.invalid({ title: "nothing to change" });
      return ctx.hub.groups.update(ctx.caller, input, input.conversation_id, change);
    }),
  pin: authedProcedure
    .meta({ rest: { method: "PUT", path: `${C}/pin`, status: 204, summary: "Pin a conversation (§9.3)" } })
    .input(conversationInput)
    .output(noContent)
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.conversations.pin(ctx.caller, input, input.conversation_id);
      return null;
    }),
  unpin: authedProcedure
    .meta({ rest: { method: "DELETE", path: `${C}/pin`, status: 204, summary: "Unpin a conversation (§9.3)" } })
    .input(conversationInput)
    .output(noContent)
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.conversations.unpin(ctx.caller, input, input.conversation_id);
      return null;
    }),
  setMeatProxy: authedProcedure
    .meta({
      rest: {
        method: "PUT",
        path: `${C}/meat-proxy`,
        status: 204,
        summary: "Set the meat-proxy lead part for one conversation (§9.3)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...meatProxyInput.shape }))
    .output(noContent)
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.conversations.setMeatProxy(ctx.caller, input, input.conversation_id, {
        meat_proxy: input.meat_proxy,
      });
      return null;
    }),
});

export const participantsRouter = router({
  add: authedProcedure
    .meta({
      rest: { method: "POST", path: `${C}/participants`, summary: "Add a participant to a group chat (§9.2)" },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...addParticipantInput.shape }))
    .output(groupViewSchema)
    .mutation(({ ctx, input }) =>
      ctx.hub.groups.addParticipant(
        ctx.caller,
        input,
        input.conversation_id,
        pick(input, ["member_id", "share_history", "wake"]),
      ),
    ),
  update: authedProcedure
    .meta({
      rest: {
        method: "PATCH",
        path: `${C}/participants/{member_id}`,
        summary: "Change a participation (wake: not built, refused)",
      },
    })
    .input(
      z.strictObject({
        ...projectRef.shape,
        conversation_id: conversationIdSchema,
        member_id: participantId,
        wake: z.unknown().optional(),
      }),
    )
    .output(participationSchema)
    .mutation(({ ctx, input }) =>
      ctx.hub.groups.updateParticipant(ctx.caller, input, input.conversation_id, input.member_id),
    ),
  remove: authedProcedure
    .meta({
      rest: {
        method: "DELETE",
        path: `${C}/participants/{member_id}`,
        summary: "Remove a participant, or leave with your own id (§9.2)",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, member_id: participantId }))
    .output(participationSchema)
    .mutation(({ ctx, input }) =>
      ctx.hub.groups.removeParticipant(ctx.caller, input, input.conversation_id, input.member_id),
    ),
});

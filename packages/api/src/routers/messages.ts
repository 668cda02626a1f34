import {
  eventPage,
  eventsQuery,
  listMessagesQuery,
  messagePage,
  messageRoutingInput,
  messageRoutingSchema,
  messageSchema,
  postEventInput,
  position,
  postMessageInput,
  projectRef,
  redactInput,
} from "@maity/domain";
import { z } from "zod";
import { authedProcedure, router } from "../trpc.ts";
import { C, conversationIdSchema, conversationInput, idempotencyKey, P, pick, seqParam } from "./inputs.ts";

// Messages (§9.1, §9.2, §8.5): the window and the history, posting, the routing verdicts, typing,
// the read marker, redaction; and the caller's events of a project (§8.2, §8.4).

/** A posted message, and whether it is the first answer of a repeated request (Idempotency-Key). */
const postedOutput = z.object({ replayed: z.boolean(), message: messageSchema });

export const messagesRouter = router({
  list: authedProcedure
    .meta({
      rest: {
        method: "GET",
        path: `${C}/messages`,
        summary:
          "Read the window (after=), the history (before=) or the history around a message (around=) of a conversation",
      },
    })
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...listMessagesQuery.shape }))
    .output(messagePage)
    .query(({ ctx, input }) =>
      ctx.hub.messages.list(
        ctx.caller,
        input,
        input.conversation_id,
        pick(input, ["after", "before", "around", "limit"]),
      ),
    ),
  post: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${C}/messages`,
        status: 201,
        summary:
          "Post a chat message; a repeat with the same Idempotency-Key answers the first message (200) and writes nothing",
        headers: { "idempotency-key": "idempotency_key" },
        respond: (out: z.infer<typeof postedOutput>) => ({ status: out.replayed ? 200 : 201, body: out.message }),
        responseSchema: messageSchema,
      },
    })
    .input(
      z.strictObject({
        ...projectRef.shape,
        conversation_id: conversationIdSchema,
        ...postMessageInput.shape,
        idempotency_key: idempotencyKey,
      }),
    )
    .output(postedOutput)
    .mutation(async ({ ctx, input }) => {
      const written = await ctx.hub.messages.post(
        ctx.caller,
        input,
        input.conversation_id,
        pick(input, ["body", "to_instance", "reply_to", "attachments"]),
        input.idempotency_key ?? null,
      );
      return { replayed: written.replayed, message: written.message };
    }),
  /** Who the hub asked to answer each message, and why (the stored verdicts, 004 §4); the dashboard's chips. */
  routing: authedProcedure
    .input(z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema, ...messageRoutingInput.shape }))
    .output(z.array(messageRoutingSchema))
    .query(({ ctx, input }) => ctx.hub.messages.routing(ctx.caller, input, input.conversation_id, input.seqs)),
  /** The composer says its person is writing (throttled by the dashboard); the others' live feed shows it. */
  typing: authedProcedure
    .input(conversationInput)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.hub.messages.typing(ctx.caller, input, input.conversation_id);
      return { ok: true as const };
    }),
  /** The dashboard's "read up to here" after showing messages the live feed brought (§9.2 read marker). */
  markRead: authedProcedure
    .input(
      z.strictObject({
        ...projectRef.shape,
        conversation_id: conversationIdSchema,
        seq: position("a message seq", 0),
      }),
    )
    .output(z.object({ read_marker: z.number().int().nullable() }))
    .mutation(({ ctx, input }) => ctx.hub.messages.markReadUpTo(ctx.caller, input, input.conversation_id, input.seq)),
  redact: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${C}/messages/{seq}/redact`,
        summary: "Redact a message (§8.5); it keeps its place",
      },
    })
    .input(
      z.strictObject({
        ...projectRef.shape,
        conversation_id: conversationIdSchema,
        seq: seqParam,
        ...redactInput.shape,
      }),
    )
    .output(messageSchema)
    .mutation(({ ctx, input }) =>
      ctx.hub.messages.redact(ctx.caller, input, input.conversation_id, String(input.seq), pick(input, ["reason"])),
    ),
});

export const eventsRouter = router({
  list: authedProcedure
    .meta({
      rest: { method: "GET", path: `${P}/events`, summary: "The caller's readable events of a project (§8.2)" },
    })
    .input(z.strictObject({ ...projectRef.shape, ...eventsQuery.shape }))
    .output(eventPage)
    .query(({ ctx, input }) => ctx.hub.messages.events(ctx.caller, input, pick(input, ["after", "limit"]))),
  post: authedProcedure
    .meta({
      rest: {
        method: "POST",
        path: `${P}/events`,
        status: 201,
        summary: "Post an event; type chat is the same write as POST …/messages (§8.4), Idempotency-Key included",
        headers: { "idempotency-key": "idempotency_key" },
        respond: (out: z.infer<typeof postedOutput>) => ({ status: out.replayed ? 200 : 201, body: out.message }),
        responseSchema: messageSchema,
      },
    })
    .input(z.strictObject({ ...projectRef.shape, ...postEventInput.shape, idempotency_key: idempotencyKey }))
    .output(postedOutput)
    .mutation(async ({ ctx, input }) => {
      const written = await ctx.hub.messages.postEvent(
        ctx.caller,
        input,
        pick(input, ["type", "conversation_id", "body", "to_instance", "reply_to", "attachments"]),
        input.idempotency_key ?? null,
      );
      return { replayed: written.replayed, message: written.message };
    }),
});

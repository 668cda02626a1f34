import { directItemSchema, loginInput, messagePage, messageSchema, postMessageInput, projectOutput, projectRef } from "@maity/domain";
import { z } from "zod";
import { clearSessionCookie, sessionCookie } from "../session.ts";
import { authedProcedure, humanProcedure, publicProcedure, router } from "../trpc.ts";

const conversationRef = projectRef.extend({ conversation_id: z.string().min(1) });
const meOutput = z.object({ id: z.string(), kind: z.enum(["human", "agent"]), handle: z.string() }).nullable();

export const appRouter = router({
  auth: router({
    me: publicProcedure.output(meOutput).query(({ ctx }) => (ctx.caller ? { id: ctx.caller.id, kind: ctx.caller.kind, handle: ctx.caller.handle } : null)),
    login: publicProcedure
      .input(loginInput)
      .output(z.object({ id: z.string(), handle: z.string(), name: z.string() }))
      .mutation(async ({ ctx, input }) => {
        const { session, human } = await ctx.hub.auth.login(input);
        ctx.resHeaders.append("set-cookie", sessionCookie(session, ctx.secure));
        return { id: human.id, handle: human.handle, name: human.name };
      }),
    logout: humanProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
      if (ctx.session) await ctx.hub.auth.logout(ctx.session);
      ctx.resHeaders.append("set-cookie", clearSessionCookie(ctx.secure));
      return { ok: true as const };
    }),
  }),
  projects: router({
    mine: authedProcedure.output(z.array(projectOutput)).query(({ ctx }) => ctx.hub.direct.projects(ctx.caller)),
  }),
  conversations: router({
    list: authedProcedure
      .input(projectRef)
      .output(z.object({ items: z.array(directItemSchema), next_cursor: z.string().nullable() }))
      .query(async ({ ctx, input }) => ({ items: await ctx.hub.direct.listDirect(ctx.caller, input), next_cursor: null })),
    get: authedProcedure
      .input(conversationRef)
      .output(directItemSchema)
      .query(({ ctx, input }) => ctx.hub.direct.getDirect(ctx.caller, input, input.conversation_id)),
  }),
  messages: router({
    list: authedProcedure
      .input(conversationRef.extend({ after: z.number().int().min(0).optional(), before: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(200).optional() }))
      .output(messagePage)
      .query(({ ctx, input }) => ctx.hub.direct.messages(ctx.caller, input, input.conversation_id, { after: input.after, before: input.before, limit: input.limit })),
    post: authedProcedure
      .input(conversationRef.extend(postMessageInput.shape))
      .output(messageSchema)
      .mutation(({ ctx, input }) => ctx.hub.direct.post(ctx.caller, input, input.conversation_id, { body: input.body, to_instance: input.to_instance })),
  }),
});
export type AppRouter = typeof appRouter;

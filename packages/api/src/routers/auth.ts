import { isHubError, loginInput, signupInput, signupOutput } from "@maity/domain";
import { z } from "zod";
import { clearSessionCookie, sessionCookie } from "../session.ts";
import { humanProcedure, publicProcedure, router } from "../trpc.ts";

// The dashboard's session: who is signed in, logging in (the session cookie) and out.

export const authRouter = router({
  me: publicProcedure
    .output(z.object({ id: z.string(), kind: z.enum(["human", "agent"]), handle: z.string() }).nullable())
    .query(({ ctx }) => (ctx.caller ? { id: ctx.caller.id, kind: ctx.caller.kind, handle: ctx.caller.handle } : null)),
  login: publicProcedure
    .input(loginInput)
    .output(z.object({ id: z.string(), handle: z.string(), name: z.string() }))
    .mutation(async ({ ctx, input }) => {
      try {
        const { session, human, expiresAt } = await ctx.hub.auth.login(input, { address: ctx.address ?? null });
        ctx.resHeaders.append("set-cookie", sessionCookie(session, ctx.secure, expiresAt.getTime() - Date.now()));
        return { id: human.id, handle: human.handle, name: human.name };
      } catch (error) {
        // A refused login says when to come back (429 Retry-After).
        const wait = isHubError(error) && error.code === "rate_limited" ? error.details.retry_after : undefined;
        if (wait !== undefined) ctx.resHeaders.set("retry-after", String(wait));
        throw error;
      }
    }),
  /**
   * Issue 29: a new person of their own Bay, signed in at once (the cookie); with an invite they join
   * its project. Without one only when MAITY_SIGNUP=open (403 invite_only otherwise).
   */
  signup: publicProcedure
    .meta({ rest: { method: "POST", path: "/api/auth/signup", status: 201, summary: "Sign up (with an invite)" } })
    .input(signupInput)
    .output(signupOutput)
    .mutation(async ({ ctx, input }) => {
      try {
        const { session, view } = await ctx.hub.invites.signup(input, { address: ctx.address ?? null });
        const ms = session.expiresAt.getTime() - Date.now();
        ctx.resHeaders.append("set-cookie", sessionCookie(session.session, ctx.secure, ms));
        return view;
      } catch (error) {
        const wait = isHubError(error) && error.code === "rate_limited" ? error.details.retry_after : undefined;
        if (wait !== undefined) ctx.resHeaders.set("retry-after", String(wait));
        throw error;
      }
    }),
  logout: humanProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
    if (ctx.session) await ctx.hub.auth.logout(ctx.session);
    ctx.resHeaders.append("set-cookie", clearSessionCookie(ctx.secure));
    return { ok: true as const };
  }),
});

import { conversationSummarySchema } from "@maity/domain";
import { humanProcedure, router } from "../trpc.ts";
import { C, conversationInput } from "./inputs.ts";

// The rolling summary, the people's side (DESIGN §4b "Summary"): any person who reads the chat
// (observers too) reads its record and the raw messages after it; agents read theirs on the agent
// API (routers/agent.ts `summary`). A read never waits for the generator and never fails on it.

export const summaryRouter = router({
  get: humanProcedure
    .meta({
      rest: {
        method: "GET",
        path: `${C}/summary`,
        summary:
          "The chat's rolling summary (DERIVED_UNTRUSTED_CONTEXT: narrative, decisions, open tasks, open questions, " +
          "facts, each citing its messages) and every message after its boundary; status fresh, stale or unavailable",
      },
    })
    .input(conversationInput)
    .output(conversationSummarySchema)
    .query(({ ctx, input }) => ctx.hub.summaries.forPeople(ctx.caller, input, input.conversation_id)),
});

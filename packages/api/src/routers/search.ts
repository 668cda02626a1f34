import { searchPageSchema, searchQuery } from "@maity/domain";
import { authedProcedure, router } from "../trpc.ts";

// Message search for people (DESIGN §4d): the rules are hub/search's; this maps the wire shape.

export const searchRouter = router({
  messages: authedProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/search",
        summary:
          "Messages the caller may read now matching q (DESIGN §4d): newest first or sort=relevance, " +
          "highlights in code points; hidden answers exactly like nothing found",
      },
    })
    .input(searchQuery)
    .output(searchPageSchema)
    .query(({ ctx, input }) => ctx.hub.search.people(ctx.caller, input)),
});

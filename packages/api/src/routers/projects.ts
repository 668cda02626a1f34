import { personNameSchema, personNamesInput, projectMemberSchema, projectOutput } from "@maity/domain";
import { z } from "zod";
import { authedProcedure, router } from "../trpc.ts";
import { P, projectInput } from "./inputs.ts";

// The caller's projects, their members, and the names the dashboard shows.

export const projectsRouter = router({
  mine: authedProcedure.output(z.array(projectOutput)).query(({ ctx }) => ctx.hub.conversations.projects(ctx.caller)),
  /** Names for the member ids the dashboard shows (senders, observers, former participants). */
  names: authedProcedure
    .input(personNamesInput)
    .output(z.array(personNameSchema))
    .query(({ ctx, input }) => ctx.hub.conversations.names(ctx.caller, input.ids)),
  members: authedProcedure
    .meta({ rest: { method: "GET", path: `${P}/members`, summary: "The project's active members (members only)" } })
    .input(projectInput)
    .output(z.array(projectMemberSchema))
    .query(({ ctx, input }) => ctx.hub.conversations.members(ctx.caller, input)),
});

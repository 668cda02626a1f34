import { healthOutput } from "@maity/domain";
import { z } from "zod";
import { publicProcedure, router } from "../trpc.ts";
import { adminRouter } from "./admin.ts";
import { agentRouter } from "./agent.ts";
import { authRouter } from "./auth.ts";
import { conversationsRouter, participantsRouter } from "./conversations.ts";
import { attachmentsRouter, libraryRouter } from "./library.ts";
import { searchRouter } from "./search.ts";
import { liveRouter } from "./live.ts";
import { eventsRouter, messagesRouter } from "./messages.ts";
import { agentsRouter, linksRouter } from "./pairing.ts";
import { pollsRouter, reactionsRouter } from "./polls.ts";
import { filesRouter } from "./files.ts";
import { notesRouter } from "./notes.ts";
import { invitesRouter } from "./invites.ts";
import { devicesRouter } from "./devices.ts";
import { approvalsRouter, mySessionsRouter, sessionsRouter } from "./sessions.ts";
import { projectsRouter } from "./projects.ts";
import { summaryRouter } from "./summary.ts";

// Every hub route is a procedure of this router (its sub-routers in routers/*.ts), with its zod
// input and output side by side; `meta.rest` says how the REST adapter serves it (rest/index.ts)
// and the OpenAPI document describes it (openapi.ts). The procedure is the one implementation: REST
// calls it through createCaller. The order of the keys below is the order of the REST routes
// (rest/index.ts walks the procedures in it) and of the OpenAPI document.

export const appRouter = router({
  health: publicProcedure
    .meta({ rest: { method: "GET", path: "/api/health", summary: "Health and migrations" } })
    .input(z.strictObject({}).optional())
    .output(healthOutput)
    .query(({ ctx }) => ctx.hub.health()),
  admin: adminRouter,
  /** The agent API (/api/agent-api, 004): one operation per procedure (routers/agent.ts). */
  agent: agentRouter,
  /** The project's file library and the attachment reads (routers/library.ts). */
  library: libraryRouter,
  attachments: attachmentsRouter,
  files: filesRouter,
  auth: authRouter,
  projects: projectsRouter,
  invites: invitesRouter,
  /** Device login and `bay_u_` credentials (issue 30, DESIGN §4e). */
  devices: devicesRouter,
  sessions: sessionsRouter,
  approvals: approvalsRouter,
  mySessions: mySessionsRouter,
  notes: notesRouter,
  /** Message search (DESIGN §4d, routers/search.ts). */
  search: searchRouter,
  summary: summaryRouter,
  live: liveRouter,
  conversations: conversationsRouter,
  participants: participantsRouter,
  messages: messagesRouter,
  events: eventsRouter,
  // v1.12 polls (B-226 … B-240) and reactions (routers/polls.ts).
  polls: pollsRouter,
  reactions: reactionsRouter,
  agents: agentsRouter,
  links: linksRouter,
});
export type AppRouter = typeof appRouter;

import {
  agentCreateFields,
  agentPatchFields,
  contextRingSchema,
  linkCodeSchema,
  linkViewSchema,
  memberIdSchema,
  ownAgentSchema,
  pairingCodeSchema,
} from "@maity/domain";
import { z } from "zod";
import { humanProcedure, router } from "../trpc.ts";

// An owner's agents and their pairing (004 §2): pairing codes and the CLI's link requests.

export const agentsRouter = router({
  mine: humanProcedure
    .output(
      z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          description: z.string(),
          /** Its Bay's handle (its owner's Bay, DESIGN §4c): in a project of another Bay it visits. */
          bay: z.string(),
          /** Its memory ring (004 v1.16): the last usage report, null when none or over 24 h old. */
          context: contextRingSchema,
          /** Tidies since its session began. */
          compactions: z.number().int(),
          /** B-288: its runtime refused a turn for a full memory (within the last day); null otherwise. */
          overflow_at: z.string().nullable(),
        }),
      ),
    )
    .query(({ ctx }) => ctx.hub.pairing.ownAgents(ctx.caller)),
  /** DESIGN §4c: an agent of the caller's own, in the caller's Bay; `<owner>/<handle>` is its name. */
  create: humanProcedure
    .meta({ rest: { method: "POST", path: "/api/agents", status: 201, summary: "Create an agent of your own" } })
    .input(agentCreateFields)
    .output(ownAgentSchema)
    .mutation(({ ctx, input }) => ctx.hub.house.createAgent(ctx.caller, input)),
  update: humanProcedure
    .meta({
      rest: { method: "PATCH", path: "/api/agents/{agent_id}", summary: "Change what your agent is for (its owner)" },
    })
    .input(z.strictObject({ agent_id: memberIdSchema, ...agentPatchFields.shape }))
    .output(ownAgentSchema)
    .mutation(({ ctx, input }) => {
      const { agent_id, ...fields } = input;
      return ctx.hub.house.updateAgent(ctx.caller, agent_id, fields);
    }),
  /** 004 §2: the owner mints a 10-minute, single-use pairing code for one of its agents (B-014). */
  mintPairingCode: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/agents/{agent_id}/pairing-codes",
        status: 201,
        summary: "Mint a pairing code for your agent (agent protocol §2)",
      },
    })
    .input(z.strictObject({ agent_id: memberIdSchema }))
    .output(pairingCodeSchema)
    .mutation(({ ctx, input }) => ctx.hub.pairing.mintPairingCode(ctx.caller, input.agent_id)),
});

export const linksRouter = router({
  /** 004 §2 reverse linking: what the owner approves (the request's label; the caller's agents). */
  get: humanProcedure
    .meta({
      rest: {
        method: "GET",
        path: "/api/links/{code}",
        summary: "A link request the CLI opened (agent protocol §2)",
      },
    })
    .input(z.strictObject({ code: linkCodeSchema }))
    .output(linkViewSchema)
    .query(({ ctx, input }) => ctx.hub.pairing.viewLink(ctx.caller, input.code)),
  approve: humanProcedure
    .meta({
      rest: {
        method: "POST",
        path: "/api/links/{code}/approve",
        summary: "Approve a link request for one of your agents (agent protocol §2)",
      },
    })
    .input(z.strictObject({ code: linkCodeSchema, agent_id: memberIdSchema }))
    .output(z.object({ approved: z.literal(true), agent_id: z.string() }))
    .mutation(({ ctx, input }) => ctx.hub.pairing.approveLink(ctx.caller, input.code, input.agent_id)),
});

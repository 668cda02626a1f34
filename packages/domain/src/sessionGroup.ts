import { z } from "zod";
import { contextEnvelopeSchema, updatesEventSchema } from "./agentApi.ts";
import { registrationSchema } from "./sessions.ts";

// join_session_group (004 v1.9, B-323): a persistent agent enters its Bay's shared Sessions group,
// where the people's terminal sessions and agents talk. Its own module: the agent operations table
// names it, and sessions.ts (the device side) does not depend on the agent API's envelope.

export const joinSessionGroupOutput = z.object({
  /** The room's id: read it with get_messages, address a peer there with contact_agent. */
  conversationId: z.string(),
  title: z.string().nullable(),
  participants: contextEnvelopeSchema.shape.participants,
  policy: contextEnvelopeSchema.shape.policy,
  /** Whether agents may talk to each other there (the room's agent rounds are not 0). */
  agentInteraction: z.boolean(),
});
export type JoinSessionGroupOutput = z.output<typeof joinSessionGroupOutput>;

/** GET /api/device-api/updates (B-331): the hosted sessions' events, each naming its session. */
export const deviceUpdatesOutput = z.object({
  cursor: z.string(),
  events: z.array(updatesEventSchema.extend({ session: z.string() })),
  registrations: z.array(registrationSchema),
});

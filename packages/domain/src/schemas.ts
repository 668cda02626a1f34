import { z } from "zod";
import { HANDLE_PATTERN, PERMISSIONS } from "./ids.ts";

// One zod schema per wire shape: validation, types and (later) the OpenAPI document.
export const handleSchema = z
  .string()
  .regex(HANDLE_PATTERN, "lowercase letters, digits and dashes, 1–40 characters");
export const memberIdSchema = z.string().regex(/^(hum|agt)-[a-z0-9-]{1,80}$/, "a member id (hum-… or agt-…)");
const nameSchema = z.string().trim().min(1, "required").max(120, "at most 120 characters");

export const createHumanInput = z.object({
  handle: handleSchema,
  name: nameSchema,
  password: z.string().min(8, "at least 8 characters").max(200, "at most 200 characters"),
});
export const humanOutput = z.object({ id: z.string(), handle: z.string(), name: z.string() });

export const createAgentInput = z.object({
  owner: handleSchema,
  handle: handleSchema,
  name: nameSchema.optional(),
  description: z.string().max(2000, "at most 2000 characters").optional(),
});
export const agentOutput = z.object({
  id: z.string(),
  handle: z.string(),
  name: z.string(),
  owner_id: z.string(),
  description: z.string(),
});

export const createProjectInput = z.object({ owner: handleSchema, slug: handleSchema, name: nameSchema });
export const projectOutput = z.object({
  id: z.string(),
  owner: z.string(),
  slug: z.string(),
  full_name: z.string(),
  name: z.string(),
  archived: z.boolean(),
});

export const addMemberInput = z.object({
  member_id: memberIdSchema,
  permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length).optional(),
});
export const memberOutput = z.object({
  member_id: z.string(),
  permissions: z.array(z.string()),
  status: z.enum(["active", "removed", "isolated"]),
});
export const removeMemberReason = z.enum(["removed", "isolated"]);

export const mintTokenInput = z.object({ member_id: memberIdSchema, label: z.string().max(100).optional() });
export const tokenOutput = z.object({ token: z.string(), member_id: z.string(), kind: z.enum(["human", "agent"]) });

export const revokeTokenInput = z.object({ token: z.string().min(1, "required").max(200, "at most 200 characters") });

export const loginInput = z.object({ handle: z.string().min(1, "required"), password: z.string().min(1, "required") });

export const projectRef = z.object({ owner: handleSchema, slug: handleSchema });

// §9.1 message shape.
export const mentionSchema = z.object({
  member_id: z.string(),
  handle: z.string(),
  field: z.literal("body"),
  offset: z.number().int(),
  length: z.number().int(),
});
export const redactionSchema = z.object({ at: z.string(), by: z.string(), reason: z.string().nullable() });
export const messageSchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  conversation_id: z.string(),
  from: z.string(),
  to: z.string(),
  body: z.string().nullable(),
  sent_at: z.string(),
  delivered_at: z.string().nullable().optional(),
  mentions: z.array(mentionSchema),
  attachments: z.array(z.unknown()),
  from_instance: z.string().nullable(),
  to_instance: z.string().nullable(),
  redacted: z.boolean(),
  redaction: redactionSchema.nullable(),
});
export type Message = z.infer<typeof messageSchema>;

export const MESSAGE_BODY_MAX = 20_000;
export const postMessageInput = z.object({
  body: z.string().refine((s) => s.trim().length > 0, "required").refine((s) => s.length <= MESSAGE_BODY_MAX, `at most ${MESSAGE_BODY_MAX} characters`),
  to_instance: z.string().min(1).max(100).nullable().optional(),
});

const seqParam = z.coerce.number().int("an integer").min(0, "at least 0");
export const listMessagesQuery = z.object({
  after: seqParam.optional(),
  before: seqParam.optional(),
  limit: z.coerce.number().int("an integer").min(1, "at least 1").max(200, "at most 200").default(50),
});
export const messagePage = z.object({
  items: z.array(messageSchema),
  next_cursor: z.string().nullable().optional(),
  earlier: z.number().int().nullable().optional(),
});

export const listParticipantSchema = z.object({
  member_id: z.string(),
  kind: z.enum(["human", "agent"]),
  handle: z.string(),
  name: z.string().optional(),
});
export const lastMessageSchema = z.object({
  seq: z.number().int(),
  from: z.string(),
  body: z.string().nullable(),
  sent_at: z.string(),
  redacted: z.boolean(),
});
export const directItemSchema = z.object({
  id: z.string(),
  kind: z.literal("direct"),
  agent_id: z.string(),
  title: z.null(),
  participants: z.array(listParticipantSchema),
  access: z.literal("party"),
  closed_at: z.null(),
  last_message_at: z.string().nullable(),
  unread: z.number().int(),
  mentions_unread: z.number().int(),
  pinned: z.boolean(),
  last_message: lastMessageSchema.nullable(),
});
export type DirectItem = z.infer<typeof directItemSchema>;

export const healthOutput = z.object({
  ok: z.boolean(),
  database: z.object({ engine: z.enum(["pglite", "postgresql"]), migrations: z.object({ applied: z.array(z.string()), pending: z.array(z.string()) }) }),
});

// §9.2 group chats.
export const GROUP_PARTICIPANTS_MAX = 12;
export const createGroupInput = z.object({
  title: z.string().trim().max(200, "at most 200 characters").nullable().optional(),
  participants: z.array(memberIdSchema).max(100, "too_many"),
  wake: z.never({ error: "not_supported" }).optional(),
});

import { z } from "zod";
import { HANDLE_PATTERN, PERMISSIONS } from "./ids.ts";
import { MAX_AGENT_ROUNDS_LIMIT, REPLY_POLICIES } from "./routing.ts";
import { position, queryInt } from "./integers.ts";
import { text } from "./text.ts";
import { ATTACHMENTS_PER_MESSAGE_MAX, attachmentSchema, cardSchema, pollSchema, reactionSchema } from "./files.ts";
import { WAKE_REASONS } from "./wake.ts";
import { quietSchema } from "./quiet.ts";
import { contextRingSchema } from "./contextReport.ts";

// One zod schema per wire shape: validation, types and (later) the OpenAPI document. Every input
// string is `text()`: no NUL, no unpaired surrogate (PostgreSQL refuses them; text.ts).
export const handleSchema = text().regex(HANDLE_PATTERN, "lowercase letters, digits and dashes, 1–40 characters");
export const memberIdSchema = text("a member id (hum-… or agt-…)").regex(
  /^(hum|agt)-[a-z0-9-]{1,80}$/,
  "a member id (hum-… or agt-…)",
);
const nameSchema = text().trim().min(1, "required").max(120, "at most 120 characters");

export const createHumanInput = z.object({
  handle: handleSchema,
  name: nameSchema,
  password: text().min(8, "at least 8 characters").max(200, "at most 200 characters"),
});
/**
 * POST /api/admin/humans: the operator may put a person into a Bay shared with others (`bay`, its
 * handle; opened when new) — a team, whose agents are each other's own, never visitors (DESIGN §4c).
 * Without it the person opens a Bay of its own, as sign-up does.
 */
export const createHumanAdminInput = createHumanInput.extend({ bay: handleSchema.optional() });
export const humanOutput = z.object({ id: z.string(), handle: z.string(), name: z.string() });

export const createAgentInput = z.object({
  owner: handleSchema,
  handle: handleSchema,
  name: nameSchema.optional(),
  description: text().max(2000, "at most 2000 characters").optional(),
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

export const mintTokenInput = z.object({
  member_id: memberIdSchema,
  label: text().max(100, "at most 100 characters").optional(),
});
export const tokenOutput = z.object({ token: z.string(), member_id: z.string(), kind: z.enum(["human", "agent"]) });

export const revokeTokenInput = z.object({ token: text().min(1, "required").max(200, "at most 200 characters") });

// Capped so a huge password is refused before scrypt hashes it. 1024, not createHuman's
// 200: a password set under a later, longer rule must still log in, and 1 KiB costs scrypt nothing.
export const LOGIN_PASSWORD_MAX = 1024;
export const loginInput = z.strictObject({
  handle: text().min(1, "required").max(200, "at most 200 characters"),
  password: text().min(1, "required").max(LOGIN_PASSWORD_MAX, `at most ${LOGIN_PASSWORD_MAX} characters`),
});

export const projectRef = z.object({ owner: handleSchema, slug: handleSchema });
/** A project of a route (`owner/slug`), as the edge parsed it. */
export type ProjectRef = z.output<typeof projectRef>;

// §9.1 message shape.
export const mentionSchema = z.object({
  member_id: z.string(),
  handle: z.string(),
  field: z.literal("body"),
  offset: z.number().int(),
  length: z.number().int(),
  /** `@handle#instance` names one instance (OQ-M-19). */
  instance_id: z.string().optional(),
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
  /** Direct conversations only: a group message has no delivered_at (§9.2 Message shape). */
  delivered_at: z.string().nullable().optional(),
  mentions: z.array(mentionSchema),
  /** §8.7 metadata (M-030); [] once redacted (M-038). */
  attachments: z.array(attachmentSchema),
  from_instance: z.string().nullable(),
  to_instance: z.string().nullable(),
  redacted: z.boolean(),
  redaction: redactionSchema.nullable(),
  /** The seq of the message this one answers (posted with reply_to), for the quote; absent when none. */
  reply_to: z.number().int().optional(),
  /** 004 v1.11, v1.12 (B-217, B-226): a card.calendar / card.email / card.poll message; absent otherwise. */
  card: cardSchema.optional(),
  /** The tally of a card.poll message, as the reader sees it (B-235). */
  poll: pollSchema.optional(),
  /** Emoji reactions, present when the message has any. */
  reactions: z.array(reactionSchema).optional(),
  /** A line the hub itself wrote (from "system"): what it is about and whom (DESIGN §4b quiet lines). */
  quiet: quietSchema.optional(),
});
export type Message = z.infer<typeof messageSchema>;

// Limits (docs/api.md "Limits"): a JSON request body of at most 256 KiB, a message body of at most
// 20,000 code points.
export const REQUEST_BODY_MAX_BYTES = 256 * 1024;
export const MESSAGE_BODY_MAX = 20_000;
/** M-030: the files of a Maity send, attachment ids in render order (1–10). */
const messageAttachments = z
  .array(text("an attachment id").min(1, "an attachment id").max(100, "an attachment id"), {
    error: "a list of attachment ids",
  })
  .min(1, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`)
  .max(ATTACHMENTS_PER_MESSAGE_MAX, `1–${ATTACHMENTS_PER_MESSAGE_MAX} files`);
/** The body may be empty only when files are attached (a picture without words). */
export const bodyOrFiles = (d: { body: string; attachments?: string[] | undefined }) =>
  d.body.trim().length > 0 || (d.attachments?.length ?? 0) > 0;
const messageFields = {
  body: text("a string").refine(
    (s) => Array.from(s).length <= MESSAGE_BODY_MAX,
    `at most ${MESSAGE_BODY_MAX} characters`,
  ),
  to_instance: text("a string").min(1, "required").max(100, "at most 100 characters").nullable().optional(),
  /** The seq of the message this one answers (the reply action; 004 §4 B-072 addresses its agent). */
  reply_to: position("a message seq").nullable().optional(),
  attachments: messageAttachments.optional(),
};
export const postMessageInput = z
  .strictObject(messageFields)
  .refine(bodyOrFiles, { message: "required", path: ["body"] });

export const queryBool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")], {
  error: "true or false",
});
export const LIST_LIMIT_MAX = 200;
export const listMessagesQuery = z.strictObject({
  after: queryInt(0).optional(),
  before: queryInt(1).optional(),
  /** The history around one message (a search result opened in its chat): half before, half after; marks nothing read. */
  around: queryInt(1).optional(),
  limit: queryInt(1, 200).default(50),
});
export const messagePage = z.object({
  items: z.array(messageSchema),
  next_cursor: z.string().nullable().optional(),
  earlier: z.number().int().nullable().optional(),
  /** With `around`: the seq to read on from with `after` when newer messages follow the page, else null. */
  later: z.number().int().nullable().optional(),
});

export const meatProxyFieldsSchema = {
  meat_proxy_lead: z.boolean().optional(),
  meat_proxy_hands: z.boolean().optional(),
  meat_proxy: z.boolean().optional(),
  meat_proxy_chat: z.boolean().nullable().optional(),
  meat_proxy_note: z.string().optional(),
};
/** How a visitor is placed in a room, on every people's participant entry (DESIGN §4c). */
export const placementSchema = z
  .object({
    home_bay: z.string(),
    sponsor: z.object({ id: z.string(), name: z.string() }),
    history: z.enum(["from_placement", "shared"]),
    wake: z.enum(["anyone", "sponsor"]),
  })
  .nullable();
export type Placement = z.output<typeof placementSchema>;

/** A participant entry of a list item (§9.3); human entries carry the meat-proxy fields. */
export const listParticipantSchema = z.object({
  member_id: z.string(),
  kind: z.enum(["human", "agent"]),
  handle: z.string(),
  name: z.string().optional(),
  ...meatProxyFieldsSchema,
  /** An agent's ring (DESIGN §4b): its last usage report, null when none or older than 24 h. */
  context: contextRingSchema.optional(),
  /** DESIGN §4c: an agent of another Bay, where from, who brought it, what it reads; null otherwise. */
  visiting: placementSchema.optional(),
  /** DESIGN §4e: a terminal session of its person (absent for every other member). */
  session: z.object({ person: z.object({ id: z.string(), name: z.string() }) }).optional(),
});
/** A participant entry of the group chat view (§9.2). */
export const viewParticipantSchema = listParticipantSchema.extend({
  owner_id: z.string().nullable(),
  joined_at: z.string(),
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
export const groupItemSchema = z.object({
  id: z.string(),
  kind: z.literal("group"),
  title: z.string().nullable(),
  created_at: z.string(),
  participants: z.array(listParticipantSchema),
  observers: z.array(z.string()),
  access: z.enum(["participant", "observer"]),
  closed_at: z.string().nullable(),
  last_message_at: z.string().nullable(),
  /** null for an observer: it reads along and is never behind (§9.3). */
  unread: z.number().int().nullable(),
  mentions_unread: z.number().int().nullable(),
  pinned: z.boolean(),
  last_message: lastMessageSchema.nullable(),
});
export type GroupItem = z.infer<typeof groupItemSchema>;
export const conversationItemSchema = z.discriminatedUnion("kind", [directItemSchema, groupItemSchema]);
export type ConversationItem = z.infer<typeof conversationItemSchema>;

export const groupViewSchema = z.object({
  id: z.string(),
  kind: z.literal("group"),
  title: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  participants: z.array(viewParticipantSchema),
  observers: z.array(z.string()),
  closed_at: z.string().nullable(),
  closed_reason: z.enum(["no_human"]).nullable(),
  access: z.enum(["participant", "observer"]),
  pinned: z.boolean(),
  /** 004 §4: the reply policy its managers set. */
  reply_policy: z.enum(REPLY_POLICIES),
  designated_agent_id: z.string().nullable(),
  max_agent_rounds: z.number().int(),
  custom_rules: z.string().nullable(),
});
export type GroupView = z.infer<typeof groupViewSchema>;
/** GET …/conversations/{id}: the direct item (§9.1) or the group chat view (§9.2). */
export const conversationSchema = z.discriminatedUnion("kind", [directItemSchema, groupViewSchema]);
export type Conversation = z.infer<typeof conversationSchema>;

export const listConversationsQuery = z.strictObject({
  observed: queryBool.default(false),
  limit: queryInt(1, LIST_LIMIT_MAX).default(50),
  cursor: text("a string").max(1000, "bad_cursor").optional(),
});
export const conversationPage = z.object({
  items: z.array(conversationItemSchema),
  next_cursor: z.string().nullable(),
});
export const listProjectSchema = z.object({
  owner: z.string(),
  slug: z.string(),
  full_name: z.string(),
  name: z.string(),
});
export const meItemSchema = z.discriminatedUnion("kind", [
  directItemSchema.extend({ project: listProjectSchema }),
  groupItemSchema.extend({ project: listProjectSchema }),
]);
export type MeItem = z.infer<typeof meItemSchema>;
export const totalsSchema = z.object({ unread: z.number().int(), mentions_unread: z.number().int() });
export const meConversationPage = z.object({
  items: z.array(meItemSchema),
  next_cursor: z.string().nullable(),
  totals: totalsSchema,
});

export const healthOutput = z.object({
  ok: z.boolean(),
  database: z.object({
    engine: z.enum(["pglite", "postgresql"]),
    migrations: z.object({ applied: z.array(z.string()), pending: z.array(z.string()) }),
  }),
  /**
   * Where uploaded files live — "local" (this machine's data folder: one app instance),
   * "s3" (shared by every instance), "memory" (tests only; nothing survives the process).
   */
  files: z.object({ store: z.enum(["local", "s3", "memory"]) }),
});

// §9.2 group chats.
export const GROUP_PARTICIPANTS_MAX = 12;
export const TITLE_MAX = 200;
/** OQ-M-03: 1–200 code points after trimming; "" and null mean no title. */
const titleSchema = text("a string or null")
  .trim()
  .refine((s) => Array.from(s).length <= TITLE_MAX, `at most ${TITLE_MAX} characters`)
  .transform((s) => (s === "" ? null : s))
  .nullable();
/** Not built (§9.2 "wake"): refused so no client believes it took effect (OQ-M-23). */
const wakeNotBuilt = z.never({ error: "not_supported" }).optional();
export const createGroupInput = z.strictObject({
  title: titleSchema.optional(),
  participants: z.array(memberIdSchema, { error: "a list of member ids" }).max(100, "too_many"),
  wake: wakeNotBuilt,
});
/** The room's custom rules, appended verbatim to every agent's instructions (004 §3 item 8). */
export const CUSTOM_RULES_MAX = 4000;
export const updateGroupInput = z
  .strictObject({
    title: titleSchema.optional(),
    // 004 §4 / DESIGN §4a: the reply policy, set by those who manage the chat.
    reply_policy: z.enum(REPLY_POLICIES, { error: `one of ${REPLY_POLICIES.join(", ")}` }).optional(),
    designated_agent_id: text("a member id or null")
      .min(1, "required")
      .max(100, "at most 100 characters")
      .nullable()
      .optional(),
    max_agent_rounds: z
      .number({ error: "an integer 0–20" })
      .int("an integer 0–20")
      .min(0, "an integer 0–20")
      .max(MAX_AGENT_ROUNDS_LIMIT, "an integer 0–20")
      .optional(),
    /** B-067: more than 5 rounds only with the manager's explicit acceptance of the token cost. */
    accept_token_cost: z.boolean({ error: "true or false" }).optional(),
    custom_rules: text("a string or null")
      .max(CUSTOM_RULES_MAX, `at most ${CUSTOM_RULES_MAX} characters`)
      .nullable()
      .optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { error: "nothing to change", path: ["title"] });
/**
 * POST …/participants. For a visiting agent (DESIGN §4c, B-300…B-302) its sponsor also says whether
 * it reads the room's earlier history (`share_history`, default false: from its placement) and who
 * wakes it (`wake`: "anyone", or "sponsor" — only its sponsor's messages).
 */
export const addParticipantInput = z.strictObject({
  member_id: memberIdSchema,
  share_history: z.boolean({ error: "true or false" }).optional(),
  // §9.2's own wake ("mentions"/"all", null) is not built (M-076, M-081): any other value stays not_supported.
  wake: z.enum(["anyone", "sponsor"], { error: "not_supported" }).optional(),
});

/** Why a stay ended; `sent_home`: a visitor recalled by its sponsor (B-307). */
export const leftReasonSchema = z.enum(["left", "removed", "membership_removed", "membership_isolated", "sent_home"]);
/** A stay of a member in a group chat (OQ-M-06); `left_at`/`reason` are null while it lasts. */
export const participationSchema = z.object({
  member_id: z.string(),
  joined_at: z.string(),
  left_at: z.string().nullable(),
  reason: leftReasonSchema.nullable(),
});
export const redactInput = z.strictObject({
  reason: text("a string or null").trim().max(500, "at most 500 characters").nullable().optional(),
});
export const meatProxyInput = z.strictObject({ meat_proxy: z.boolean({ error: "true, false or null" }).nullable() });
export const PINS_MAX = 20;

// Events (§8.2, §8.4): the caller's readable set of the log, and POST /events with type chat.
export const eventsQuery = z.strictObject({
  after: queryInt(0).optional(),
  limit: queryInt(1, LIST_LIMIT_MAX).default(50),
});
export const conversationEventSchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  kind: z.enum(["conversation_created", "conversation_updated"]),
  conversation_id: z.string(),
  from: z.string(),
  sent_at: z.string(),
  payload: z.object({
    conversation: z.record(z.string(), z.unknown()),
    changed: z.record(z.string(), z.unknown()).optional(),
  }),
});
export const messageEventSchema = messageSchema.extend({ kind: z.literal("message"), type: z.literal("chat") });
export const eventSchema = z.discriminatedUnion("kind", [messageEventSchema, conversationEventSchema]);
export type HubEvent = z.infer<typeof eventSchema>;
export const eventPage = z.object({ items: z.array(eventSchema), next_cursor: z.string().nullable() });
export const postEventInput = z
  .strictObject({
    type: z.literal("chat", { error: "not_supported" }),
    conversation_id: text("a string").min(1, "required").max(100, "at most 100 characters"),
    ...messageFields,
  })
  .refine(bodyOrFiles, { message: "required", path: ["body"] });

/** An active member of a project, as the dashboard offers it for a group chat. */
export const projectMemberSchema = z.object({
  member_id: z.string(),
  kind: z.enum(["human", "agent"]),
  handle: z.string(),
  /** A human's display name; an agent's `owner/handle`. */
  name: z.string(),
  owner_id: z.string().nullable(),
  permissions: z.array(z.string()),
});

/** One item of the dashboard's live feed: where something happened; readers reload from the hub. */
export const liveEventSchema = z.object({
  seq: z.number().int(),
  /**
   * message, read, redaction, typing, message_changed, membership changes — and `listening`, the
   * first item of every connection: the feed is live from `seq` on; what a page loaded before it
   * may have missed, the page reads again (no message lost between a page's load and its feed).
   * It comes again when the hub may have lost side items (its LISTEN connection to PostgreSQL dropped).
   */
  kind: z.string(),
  conversation_id: z.string().nullable(),
  project: z.object({ owner: z.string(), slug: z.string() }).nullable(),
  /** kind typing: who is writing. */
  member_id: z.string().optional(),
  /** kind message: the message itself, rendered once by the write, so the open chat adds it without a read. */
  message: messageSchema.optional(),
  /** Kind message_changed: what changed on message `seq` — its poll's votes or its reactions. */
  what: z.enum(["poll", "reactions", "approval"]).optional(),
});
export type LiveEvent = z.infer<typeof liveEventSchema>;

/**
 * Routing made visible: for each message, the agents the hub asked to answer it and
 * why — the verdicts stored when it was written (004 §4), never re-derived. The dashboard's.
 */
export const messageRoutingSchema = z.object({
  seq: z.number().int(),
  agents: z.array(z.object({ agent_id: z.string(), should_respond: z.boolean(), reason: z.enum(WAKE_REASONS) })),
});
export type MessageRouting = z.infer<typeof messageRoutingSchema>;
export const messageRoutingInput = z.strictObject({
  seqs: z
    .array(position("a message seq"), {
      error: "a list of seqs",
    })
    .max(200, "at most 200"),
});

/** A member's name as the dashboard shows it instead of its id (a human's display name, an agent's `owner/handle`). */
export const personNameSchema = projectMemberSchema.omit({ permissions: true });
export type PersonName = z.infer<typeof personNameSchema>;
export const personNamesInput = z.strictObject({
  ids: z
    .array(text("a member id").min(1, "a member id").max(100, "a member id"), { error: "a list of member ids" })
    .max(500, "at most 500"),
});

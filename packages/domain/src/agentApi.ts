import { z } from "zod";
import type { ReplyPolicy } from "./routing.ts";
import { agentPollSchema, agentReactionSchema, cardInputSchema, sendAttachmentsSchema } from "./files.ts";
import { MESSAGE_BODY_MAX } from "./schemas.ts";
import { INT_COLUMN_MAX, seqOfText } from "./integers.ts";
import { isSafeText, safeJsonObject, TEXT_REFUSED, text } from "./text.ts";
import { ruleIssue } from "./validation.ts";
import { notesDeltaSchema } from "./knowledge.ts";
import { contextNoticeSchema } from "./contextReport.ts";

// The agent protocol's wire shapes (004, camelCase, BayChat's names): one zod schema per shape,
// the source of the types the hub renders and the tests read. DESIGN §1 "Naming on the wire".

/** The protocol version this hub speaks: the changelog's top entry (B-029, B-031, OQ-B-02). */
export const PROTOCOL_VERSION = "1.23";

// ---- the /updates and /ws cursor (§11, B-144) -------------------------------------------------

/**
 * A cursor is an opaque encoding of a position in the one event log (DESIGN §1): `u` and the seq
 * in base 36, as the spec's `u1f`. It names the log, not a process, so it survives a restart.
 */
export const encodeUpdatesCursor = (seq: number): string => `u${seq.toString(36)}`;
export function decodeUpdatesCursor(cursor: string): number | null {
  if (!/^u[0-9a-z]{1,10}$/.test(cursor)) return null;
  const seq = Number.parseInt(cursor.slice(1), 36);
  return Number.isSafeInteger(seq) ? seq : null;
}

/** `evt-<seq>` → seq: a message id of either surface (DESIGN §1). */
export function seqOfMessageId(id: string): number | null {
  // An id past the log's integer column names no message (it reached the database as a 500).
  return id.startsWith("evt-") ? seqOfText(id.slice(4)) : null;
}

/** GET /conversations/:id/messages history cursors: `m` and the seq to read before, base 36. */
/** The log's seq is a PostgreSQL integer: a cursor past it names no position of this hub. */
export const SEQ_MAX = INT_COLUMN_MAX;
export const encodeHistoryCursor = (seq: number): string => `m${seq.toString(36)}`;
export function decodeHistoryCursor(cursor: string): number | null {
  if (!/^m[0-9a-z]{1,10}$/.test(cursor)) return null;
  const seq = Number.parseInt(cursor.slice(1), 36);
  return Number.isSafeInteger(seq) && seq > 0 && seq <= SEQ_MAX ? seq : null;
}

/** BayChat's own message types: no sender may write them (B-118, OQ-B-14 every sender). */
export const RESERVED_MESSAGE_TYPES = [
  "session.command",
  "note.edited",
  "note.read",
  "context.handoff",
  "context.compacted",
  "card.continuation",
] as const;
/** Metadata keys the hub writes itself (B-063, B-181, B-182); a sender may not forge them. */
export const SERVER_METADATA_KEYS = ["addressedAgents", "attachments", "attachmentId", "attachmentUrl"] as const;
/** B-123: a reply's preview is the quoted message's first 80 characters (code points, OQ-B-35). */
export const REPLY_PREVIEW_MAX = 80;
export const replyPreview = (body: string | null): string =>
  body === null ? "" : Array.from(body).slice(0, REPLY_PREVIEW_MAX).join("");

// ---- shapes ---------------------------------------------------------------------------------------

/** v1.14: set only for an agent from another Bay; null for every person and every own agent. */
export const visitingSchema = z.object({
  homeBay: z.string(),
  sponsor: z.object({ id: z.string(), name: z.string() }),
});
export type Visiting = z.infer<typeof visitingSchema>;

export const senderTypeSchema = z.enum(["USER", "AGENT", "SYSTEM"]);
/** §5: the resolved display identity of a sender; role null once it left the conversation (B-098). */
export const agentSenderSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["user", "agent", "system"]),
  role: z.string().nullable(),
  visiting: visitingSchema.nullable(),
});
/** v1.6 (B-122): the same four fields wherever a message reaches an agent. */
export const replyToSchema = z.object({
  id: z.string(),
  senderId: z.string(),
  senderType: senderTypeSchema,
  preview: z.string(),
});

/** B-132: the message of an event carries exactly these fields, and no others. */
export const agentEventMessageSchema = z.object({
  id: z.string(),
  senderId: z.string(),
  senderType: senderTypeSchema,
  content: z.string(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  sender: agentSenderSchema,
  /** B-087: the mentioned participant ids — agents only, the mentionable ones (B-086). */
  mentions: z.array(z.string()),
  shouldRespond: z.boolean(),
  replyTo: replyToSchema.nullable(),
});
export type AgentEventMessage = z.infer<typeof agentEventMessageSchema>;

/** B-099: the REST shape is the full one: where it lives, and the fields an event leaves out. */
export const agentMessageSchema = agentEventMessageSchema.extend({
  conversationId: z.string(),
  /** v1.11 (B-217), v1.12 (B-234): the card's payload on a card message; null otherwise. REST only (B-132). */
  cardPayload: z.record(z.string(), z.unknown()).nullable(),
  /** Who reacted with what, oldest first (B-099). REST only (spec §11: reactions emit no events). */
  reactions: z.array(agentReactionSchema),
  /** v1.12 (B-235): a card.poll message's tally as this reader sees it. REST only (B-132). */
  poll: agentPollSchema.optional(),
  /** A redacted message (Maity §8.5): content "", deletedAt the redaction's time. */
  deletedAt: z.string().nullable(),
});
export type AgentMessage = z.infer<typeof agentMessageSchema>;

export const agentConversationTypeSchema = z.enum(["GROUP", "DM"]);
export const agentConversationRefSchema = z.object({
  id: z.string(),
  type: agentConversationTypeSchema,
  title: z.string().nullable(),
});
/** B-134: every conversation lives in a project (DESIGN §1); version moves with the brief (none yet: 0). */
export const agentProjectRefSchema = z.object({ id: z.string(), name: z.string(), version: z.number().int() });

/** B-131: one message event of /updates and /ws. */
export const updatesEventSchema = z.object({
  type: z.literal("message"),
  conversationId: z.string(),
  message: agentEventMessageSchema,
  conversation: agentConversationRefSchema,
  project: agentProjectRefSchema,
  /** With features=brief: the brief, on the first event handed for each (chat, version); null: removed (B-264…B-266). */
  brief: z.string().nullable().optional(),
  /** With features=notes: what changed in the notes since this client was last handed them (B-249…B-252). */
  notes: notesDeltaSchema.optional(),
  /** With features=notice: the 90 % notice, once (B-284). */
  notice: contextNoticeSchema.optional(),
});
export type UpdatesEvent = z.infer<typeof updatesEventSchema>;
/** B-129: the same shape whether or not anything happened. */
export const updatesAnswerSchema = z.object({ cursor: z.string(), events: z.array(updatesEventSchema) });
export type UpdatesAnswer = z.infer<typeof updatesAnswerSchema>;

/** GET /conversations: the agent's rooms. */
export const agentRoomSchema = z.object({
  id: z.string(),
  type: agentConversationTypeSchema,
  title: z.string().nullable(),
  /** Where the room lives in Maity: the project's full name and the conversation's Maity id. */
  maity: z.object({ project: z.string(), id: z.string() }),
  project: agentProjectRefSchema,
  closed: z.boolean(),
  lastMessageAt: z.string().nullable(),
});
export type AgentRoom = z.infer<typeof agentRoomSchema>;

/** B-039: name, kind, role, and for agents the description — never email, phone or internals. */
export const rosterEntrySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(["user", "agent"]),
  role: z.string(),
  description: z.string().optional(),
  visiting: visitingSchema.nullable(),
});
export type RosterEntrySchema = z.infer<typeof rosterEntrySchema>;

/** §3 the context envelope, "Agent Context Contract v2" (B-036, B-040). */
export const contextEnvelopeSchema = z.object({
  conversation: agentConversationRefSchema,
  project: agentProjectRefSchema,
  participants: z.array(rosterEntrySchema),
  policy: z.object({
    rule: z.string().nullable(),
    effectiveRule: z.string(),
    policyApplies: z.boolean(),
    maxAgentRounds: z.number().int().nullable(),
  }),
  you: z.object({ id: z.string(), name: z.string(), isOrchestrator: z.boolean() }),
  instructions: z.string(),
  /**
   * The sha256 (hex) of `instructions`' UTF-8 bytes: a bot sees at a glance whether its prompt cache
   * still holds, and why not when it changed (the instructions are a pure function of the room).
   */
  instructionsSha256: z.string(),
  /** With features=brief: the brief, at most once per version across context reads (B-269). */
  brief: z.string().nullable().optional(),
  /** With features=notes: the notes delta, at most once (B-257). */
  notes: notesDeltaSchema.optional(),
  /** With features=notice: the 90 % notice, once (B-285). */
  notice: contextNoticeSchema.optional(),
});
export type ContextEnvelope = z.infer<typeof contextEnvelopeSchema>;

/** GET /conversations/:id/messages: the messages and the envelope (B-037). */
export const agentMessagePageSchema = z.object({
  messages: z.array(agentMessageSchema),
  /** History mode: the cursor of the next older page, null at the chat's first message. */
  nextCursor: z.string().nullable(),
  context: contextEnvelopeSchema,
});
export type AgentMessagePage = z.infer<typeof agentMessagePageSchema>;

// ---- inputs -------------------------------------------------------------------------------------

// Usage counts are reported, never stored: no column bounds them beyond a safe integer.
const count = (name: string) =>
  z
    .number({ error: `${name}: a whole number` })
    .int(`${name}: a whole number`)
    .min(0, `${name}: at least 0`);

/** §7 POST /conversations/:id/messages (B-114); attachments and cards come with their issues. */
export const agentSendInput = z.strictObject({
  // Every string of a send, metadata's nested strings and keys too, is text(): PostgreSQL refuses NUL.
  content: text("a string")
    .refine((s) => s.trim().length > 0, "required")
    .refine((s) => Array.from(s).length <= MESSAGE_BODY_MAX, `at most ${MESSAGE_BODY_MAX} characters`),
  // B-118 OQ-B-14: the hub's own types; B-063 B-181: the keys the hub sets. Refused here, at the edge.
  metadata: safeJsonObject("an object or null")
    .check((ctx) => {
      const type = ctx.value.type;
      if (typeof type === "string" && (RESERVED_MESSAGE_TYPES as readonly string[]).includes(type))
        ctx.issues.push(
          ruleIssue("reserved", ["type"], ctx.value, {
            says: `metadata.type ${type} is written by the hub only`,
            agentCode: "RESERVED_MESSAGE_TYPE",
          }),
        );
      for (const key of SERVER_METADATA_KEYS)
        if (Object.hasOwn(ctx.value, key))
          ctx.issues.push(ruleIssue("server_set", [key], ctx.value, { says: `metadata.${key} is set by the hub` }));
    })
    .nullable()
    .optional(),
  replyToMessageId: text("a message id").max(40, "a message id").nullable().optional(),
  /** v1.11 (B-217): a calendar or email card; `content` stays the plain-text fallback (B-218). */
  card: cardInputSchema.optional(),
  /** B-198: 1–10 uploaded files, array order = render order; the server derives their types (B-200). */
  attachments: sendAttachmentsSchema.optional(),
  /** B-198: the legacy single file (with `metadata: {type}`); never together with `attachments` (B-199). */
  attachmentId: text("an attachment id").min(1, "an attachment id").max(100, "an attachment id").nullable().optional(),
  /** The client's id of this send: a retry with the same id answers the first message (200), never a second. */
  clientMessageId: text("a string of 1–200 characters")
    .min(1, "1–200 characters")
    .max(200, "1–200 characters")
    .optional(),
  /** OQ-B-27: the reply's token usage; validated, not stored. */
  usage: z
    .strictObject(
      { inputTokens: count("inputTokens").optional(), outputTokens: count("outputTokens").optional() },
      { error: "an object" },
    )
    .optional(),
});
export type AgentSendInput = z.infer<typeof agentSendInput>;

/** §5 the forward poll (`since`, ascending) or older history (`cursor`, newest first). */
export const agentPollQuery = z.strictObject({
  since: z.iso.datetime({ offset: true, error: "an ISO 8601 timestamp" }).optional(),
  cursor: text("a cursor").max(40, "a cursor this route gave out").optional(),
  limit: z.coerce
    .number({ error: "an integer 1–200" })
    .int("an integer 1–200")
    .min(1, "an integer 1–200")
    .max(200, "an integer 1–200")
    .default(50),
  features: z.string().max(200).optional(),
});

/** §11 GET /updates: wait 0–25 s (default 25, OQ-B-16), the cursor, the opt-in features. */
export const UPDATES_WAIT_MAX = 25;
export const updatesQuery = z.strictObject({
  wait: z.coerce
    .number({ error: `seconds, 0–${UPDATES_WAIT_MAX}` })
    .min(0, `seconds, 0–${UPDATES_WAIT_MAX}`)
    .transform((s) => Math.min(s, UPDATES_WAIT_MAX))
    .default(UPDATES_WAIT_MAX),
  cursor: text("a cursor").max(40, "a cursor /updates or /ws gave out").optional(),
  features: z.string().max(200).optional(),
});

/** The /ws hello (B-150): the first frame, within 10 s. */
export const wsHelloSchema = z.object({
  t: z.literal("hello"),
  resume: text().max(40).nullable().optional(),
  features: z.array(z.string()).max(20).optional(),
  instance: text().max(100).optional(),
});

/** §11 Webhook contract v2: where to deliver, and the secret that signs each delivery. */
export const webhookInput = z.strictObject({
  // text(): a URL may carry a NUL in its path (the parser percent-encodes it; the string keeps it).
  url: z
    .url({ protocol: /^https?$/, error: "an http(s) URL" })
    .refine(isSafeText, TEXT_REFUSED)
    .max(2000, "at most 2000 characters")
    // No credentials: in the URL they would be sent on every delivery and shown by GET /webhook.
    .refine((url) => URL.canParse(url) && !new URL(url).username && !new URL(url).password, "no user name or password"),
  secret: text("a string").min(16, "16–200 characters").max(200, "16–200 characters").optional(),
});

/** §2 pairing: the code an owner minted. */
export const pairInput = z.strictObject({ code: text("a pairing code").min(1, "required").max(64, "a pairing code") });
/** §2 reverse linking: the CLI names itself; the owner sees the label before approving. */
export const linkRequestInput = z.strictObject({ label: text("a string").max(80, "at most 80 characters").optional() });
export const linkPollInput = z.strictObject({
  secret: text("the secret the link request gave").min(1, "required").max(200, "too long"),
});

/** GET /me (B-012, B-029). */
export const agentMeSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  instanceId: z.string().nullable(),
  protocolVersion: z.string(),
});
export type AgentMe = z.infer<typeof agentMeSchema>;

/** POST /webhook: the secret is in this answer only. */
export const webhookSetSchema = z.object({
  url: z.string(),
  secret: z.string(),
  signatureHeader: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookSet = z.infer<typeof webhookSetSchema>;
export const webhookViewSchema = z.object({
  url: z.string(),
  signatureHeader: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deliveries: z.object({ pending: z.number().int(), failed: z.number().int() }),
});
export type WebhookView = z.infer<typeof webhookViewSchema>;

/** §2: what redeeming a pairing code or collecting a link gives the client (the credentials file's fields). */
export const agentCredentialSchema = z.object({
  baseUrl: z.string(),
  token: z.string(),
  agent: z.object({ id: z.string(), name: z.string() }),
});
export type AgentCredential = z.infer<typeof agentCredentialSchema>;
export const linkOpenedSchema = z.object({
  id: z.string(),
  secret: z.string(),
  code: z.string(),
  approveUrl: z.string(),
  expiresAt: z.string(),
  pollIntervalSeconds: z.number().int(),
});
export type LinkOpened = z.infer<typeof linkOpenedSchema>;
export const linkPollSchema = z.union([
  z.object({ status: z.literal("pending") }),
  agentCredentialSchema.extend({ status: z.literal("approved") }),
]);
export type LinkPoll = z.infer<typeof linkPollSchema>;

/** B-175…B-177: one turn of a webhook's history (or the history-omitted notice). */
export const historyTurnSchema = z.object({
  id: z.string(),
  senderId: z.string(),
  senderName: z.string(),
  senderType: senderTypeSchema,
  content: z.string(),
  createdAt: z.string(),
  replyTo: replyToSchema.nullable().optional(),
});
/** Webhook contract v2 (B-163…B-167): the body of one message.created delivery. */
export const webhookDeliverySchema = z.object({
  event: z.literal("message.created"),
  deliveryId: z.string(),
  conversationId: z.string(),
  conversation: agentConversationRefSchema,
  project: agentProjectRefSchema.extend({
    notes: z.object({
      pinned: z.array(z.object({ id: z.string(), title: z.string(), version: z.number().int() })),
      shelfCount: z.number().int(),
      fileCount: z.number().int(),
    }),
  }),
  message: agentEventMessageSchema,
  sender: agentSenderSchema,
  replyTo: replyToSchema.nullable(),
  participants: z.array(rosterEntrySchema),
  instructions: z.string(),
  /** The sha256 of `instructions` (as in the envelope): it changes exactly when the instructions do. */
  instructionsSha256: z.string(),
  context: contextEnvelopeSchema,
  you: contextEnvelopeSchema.shape.you.extend({ shouldRespond: z.boolean() }),
  history: z.array(historyTurnSchema),
  /** B-285: the 90 % notice, once, on the next body after a crossing. */
  notice: contextNoticeSchema.optional(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** What the owner is shown of a minted pairing code (Maity route, snake_case). */
export const pairingCodeSchema = z.object({ code: z.string(), agent_id: z.string(), expires_at: z.string() });
export const linkCodeSchema = text("a link code").min(1, "required").max(40, "a link code");
export const linkViewSchema = z.object({
  label: z.string().nullable(),
  status: z.enum(["pending", "approved", "expired"]),
  created_at: z.string(),
  expires_at: z.string(),
  /** The caller's agents, to pick the one this computer becomes. */
  agents: z.array(z.object({ id: z.string(), name: z.string() })),
});

/** The feature names a client may opt in to (B-143, B-150); unknown names are ignored. */
export function parseFeatures(value: string | readonly string[] | undefined): Set<string> {
  const names = typeof value === "string" ? value.split(",") : (value ?? []);
  return new Set(names.map((n) => n.trim()).filter((n) => ["brief", "notes", "notice"].includes(n)));
}

// ---- who is who in a room ---------------------------------------------------------------------------

/** v1.14, DESIGN §1: an agent placed in a project of another Bay than its owner's is visiting there. */
export const isVisiting = (homeBayId: string, projectBayId: string): boolean => homeBayId !== projectBayId;
/**
 * Where the history an agent may read starts: the chat's first message (Maity §9.2 — history before
 * the join is readable), except for a visitor, whose history starts at its placement (B-301; a
 * sponsor cannot share earlier history yet).
 */
export const historyFloorOf = (visiting: boolean, windowSeq: number): number => (visiting ? windowSeq : 0);

/** §5 `senderType` / `sender.kind` of a member id (B-133). */
export function senderKindOf(memberId: string): {
  senderType: "USER" | "AGENT" | "SYSTEM";
  kind: "user" | "agent" | "system";
} {
  if (memberId.startsWith("agt-")) return { senderType: "AGENT", kind: "agent" };
  if (memberId.startsWith("hum-")) return { senderType: "USER", kind: "user" };
  return { senderType: "SYSTEM", kind: "system" };
}

/**
 * A member's conversation role (§3 roster, §5 sender.role): the agent a policy names (orchestrator,
 * designated, fallback), the chat's creator, or member; null once it left (B-098).
 */
export function conversationRole(input: {
  memberId: string;
  participant: boolean;
  createdById: string | null;
  group: boolean;
  policy: ReplyPolicy;
  designatedAgentId: string | null;
}): string | null {
  if (!input.participant) return null;
  if (input.group && input.designatedAgentId === input.memberId) {
    if (input.policy === "ORCHESTRATOR") return "orchestrator";
    if (input.policy === "DEDICATED") return "designated";
    if (input.policy === "ROUTER") return "fallback";
  }
  return input.createdById === input.memberId ? "creator" : "member";
}

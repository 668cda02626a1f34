import { z } from "zod";
import { text } from "./text.ts";

// Terminal sessions (issue 30, DESIGN §4e; 004 "If your client connects as a person", v1.9, v1.10,
// v1.13, v1.19, v1.21, v1.23; B-310…B-343): a person's `bay_u_` device credential acts only through
// named sessions — each an agent identity of that person (kind `session`) — and joins rooms for
// itself. The device API's shapes are camelCase like the agent API's.

/**
 * A session's name: what the person calls the terminal ("frontend", "api-2"), also its handle, so
 * it is mentioned as `@frontend` and shown as `<person>/frontend`. The handle rule, lower case.
 */
export const SESSION_NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
export const sessionNameField = text("the session's name")
  .trim()
  .toLowerCase()
  .min(1, "required: the session's name")
  .max(32, "at most 32 characters")
  .regex(SESSION_NAME_PATTERN, "letters, digits and inner hyphens (like a handle)");

/**
 * v1.23: what a group id looks like — the agent API's conversation id (the hub's key, a cuid) or
 * the Maity id people see (`cnv-0042`). B-318: a title shaped like one would make `group` mean two things.
 */
export const GROUP_ID_PATTERNS = [/^c[a-z0-9]{24}$/, /^cnv-\d{4,}$/i] as const;
export const isGroupIdShaped = (title: string): boolean => GROUP_ID_PATTERNS.some((p) => p.test(title.trim()));

/** B-327: Codex's thread id ($CODEX_THREAD_ID) is a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** join_session (B-314…B-321, B-327…B-330): a group by id or exact title, the shared Sessions group, or private. */
export const joinSessionInput = z
  .strictObject({
    session: sessionNameField,
    group: text("a group's id or exact title").trim().min(1, "a group's id or exact title").max(200).optional(),
    sessions: z.boolean({ error: "true or false" }).optional(),
    runtime: z.literal("codex", { error: 'only "codex"' }).optional(),
    threadId: text("a Codex thread id").max(36, "at most 36 characters").regex(UUID, "a UUID").optional(),
  })
  .superRefine((v, ctx) => {
    if (v.threadId !== undefined && v.runtime !== "codex")
      ctx.addIssue({ code: "custom", path: ["threadId"], message: 'threadId requires runtime: "codex"' });
    if (v.group !== undefined && v.sessions)
      ctx.addIssue({ code: "custom", path: ["sessions"], message: "a group or the Sessions group, not both" });
  });
export type JoinSessionInput = z.output<typeof joinSessionInput>;

const bayRef = z.object({ id: z.string(), name: z.string() });
const roomRef = z.object({
  id: z.string(),
  maityId: z.string(),
  type: z.enum(["GROUP", "DM"]),
  title: z.string().nullable(),
  /** The Maity project the room lives in (`owner/slug`). */
  project: z.string(),
});
/** B-328: a Codex registration's delivery: registered with a thread, unavailable without one; none otherwise. */
export const incomingDeliverySchema = z.object({ status: z.enum(["registered", "unavailable", "none"]) });

export const sessionSchema = z.object({
  /** The session's agent id: senderId of what it writes. */
  id: z.string(),
  name: z.string(),
  bay: bayRef,
  runtime: z.literal("codex").nullable(),
  threadId: z.string().nullable(),
  createdAt: z.string(),
  lastJoinedAt: z.string(),
});
export type SessionView = z.output<typeof sessionSchema>;

export const joinSessionOutput = z.object({
  /** B-319: the first line says where it joined; the model repeats it when confirming. */
  text: z.string(),
  session: sessionSchema,
  bay: bayRef,
  conversation: roomRef,
  incomingDelivery: incomingDeliverySchema,
});
export type JoinSessionOutput = z.output<typeof joinSessionOutput>;

/** B-331: what the relay of the same device reads, its own device's registrations only. */
export const registrationSchema = z.object({
  session: z.string(),
  runtime: z.literal("codex"),
  threadId: z.string(),
  registeredAt: z.string(),
});
export const listSessionsOutput = z.object({
  sessions: z.array(sessionSchema),
  registrations: z.array(registrationSchema),
});
export const sessionRefInput = z.strictObject({ session: sessionNameField });
export const endSessionOutput = z.object({ ended: z.literal(true), session: z.string(), roomsLeft: z.number().int() });

/** list_groups (B-311): the groups this login is in — exact title, members, id. */
export const groupEntrySchema = z.object({
  /** The agent API's conversation id (get_messages, send_message take it). */
  id: z.string(),
  /** The id people see in the dashboard (`cnv-0042`); join_session takes either. */
  maityId: z.string(),
  title: z.string().nullable(),
  project: z.string(),
  members: z.array(z.object({ id: z.string(), name: z.string(), kind: z.enum(["user", "agent", "session"]) })),
  /** The shared Sessions group of the Bay (v1.9). */
  sessions: z.boolean(),
});
export const listGroupsOutput = z.object({ bay: bayRef, groups: z.array(groupEntrySchema) });

export const sessionCreateGroupInput = z.strictObject({
  session: sessionNameField,
  title: text("a title").trim().min(1, "a title").max(200, "at most 200 characters"),
  /** A project of this Bay the person is a member of (`owner/slug` or slug); default the Bay's `sessions`. */
  project: text("a project").trim().min(1).max(120).optional(),
});

/**
 * B-314…B-317: the group a join names, among the groups the person is in — an id matched exactly
 * first, then the exact title; an id of any other group is not in that list, so it reads like an
 * unknown title. Pure: the caller hands the person's groups of this Bay.
 */
export function matchGroup<G extends { id: string; maityId: string; title: string | null }>(
  groups: readonly G[],
  ref: string,
): { found: G } | { refused: "GROUP_NOT_FOUND" } | { refused: "GROUP_AMBIGUOUS"; ids: string[] } {
  const wanted = ref.trim();
  const byId = groups.find((g) => g.id === wanted || g.maityId.toLowerCase() === wanted.toLowerCase());
  if (byId) return { found: byId };
  const byTitle = groups.filter((g) => g.title === wanted);
  if (byTitle.length === 1 && byTitle[0]) return { found: byTitle[0] };
  if (byTitle.length > 1) return { refused: "GROUP_AMBIGUOUS", ids: byTitle.map((g) => g.id) };
  return { refused: "GROUP_NOT_FOUND" };
}

/** B-319: the join's first line, naming the Bay and the room (the group by its title). */
export function joinedLine(name: string, bay: string, room: { type: "GROUP" | "DM"; title: string | null }): string {
  const where = room.type === "GROUP" ? `group "${room.title ?? "untitled"}"` : "a private chat with you";
  return `Joined as "${name}" in Bay "${bay}" — ${where}`;
}

/** The title of the Bay's shared Sessions group and the slug of the project that holds it (v1.9). */
export const SESSIONS_GROUP_TITLE = "Sessions";
export const SESSIONS_PROJECT_SLUG = "sessions";

/**
 * B-342: whether a message is wholly a session command the relay runs (`/clear`, `/new`, `/compact`,
 * a fresh start's clear): the trimmed text is the command alone, or with the session's @mention.
 */
export const SESSION_COMMANDS = ["/clear", "/new", "/compact"] as const;
export function isSessionCommand(body: string, sessionHandle: string): boolean {
  const words = body.trim().split(/\s+/).filter(Boolean);
  const rest = words.filter((w) => w.toLowerCase() !== `@${sessionHandle}`);
  return rest.length === 1 && (SESSION_COMMANDS as readonly string[]).includes(rest[0]?.toLowerCase() ?? "");
}

// ---- listening (v1.10, v1.21; B-332…B-343) ------------------------------------------------------

/** B-333: an unopened ticket dies five minutes after issue. */
export const LISTEN_TICKET_TTL_MS = 5 * 60 * 1000;
/** What a listen ticket starts with: a credential, never shown in a room (B-338). */
export const LISTEN_TICKET_PREFIX = "mtk_";
/** The monitor's WebSocket subprotocol carries the ticket: a URL is what proxies log (as v1.22 says of tokens). */
export const MONITOR_PROTOCOL_PREFIX = "maity.monitor.";
/** B-336: close code of a listener stopped or replaced — do not reconnect. */
export const MONITOR_CLOSE_REPLACED = 4000;

export const listenMessagesInput = z.strictObject({
  session: sessionNameField,
  /** B-341: set only by Maity's own relay channel: the session's commands are run by it, not announced. */
  commands: z.literal("relay", { error: 'only "relay"' }).optional(),
  /** The last frame's cursor: the new listener replays what came after it (a reconnect loses nothing). */
  cursor: text("a cursor a frame gave").min(1).max(100).optional(),
});
export const listenMessagesOutput = z.object({
  monitor: z.object({
    url: z.string(),
    /** Pass as the WebSocket subprotocol; a credential — never post it in a room. */
    protocol: z.string(),
    ticket: z.string(),
    expiresAt: z.string(),
  }),
  status: z.literal("awaiting_connection"),
});
export const DELIVERY_STATUSES = ["none", "awaiting_connection", "connected", "closed", "expired", "stopped"] as const;
export const deliveryStatusOutput = z.object({
  session: z.string(),
  /** B-334: awaiting_connection is not readiness — connected is. */
  status: z.enum(DELIVERY_STATUSES),
  connectedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  commands: z.literal("relay").nullable(),
});
export type DeliveryStatus = z.output<typeof deliveryStatusOutput>;

/** B-335: one frame of the monitor: the actionable messages (shouldRespond) and where to resume. */
export type MonitorFrame =
  | { type: "ready"; session: string; cursor: string }
  | { type: "messages"; items: { conversationId: string; messageId: string }[]; cursor: string }
  | { type: "reset"; cursor: string };

/** Whether a text holds a listen ticket (B-338): a message carrying one is refused, never posted. */
export const holdsListenTicket = (body: string): boolean => /mtk_[A-Za-z0-9_-]{24,}/.test(body);

/** GET /api/device-api/updates (B-331): the device feed's query; `wait` seconds held at most 25. */
export const deviceUpdatesQuery = z.strictObject({
  cursor: text("a cursor this feed gave").max(100).optional(),
  wait: z.coerce
    .number({ error: "a number of seconds" })
    .int("whole seconds")
    .min(0, "0–25")
    .max(25, "0–25")
    .default(0),
});

import type { PingRate } from "@maity/domain";
import { openDatabase, type Database, type DatabaseOptions } from "@maity/db";
import { adminService } from "./admin/service.ts";
import { visitorService } from "./house/visitors.ts";
import { deviceService } from "./devices/service.ts";
import { sessionService } from "./sessions/service.ts";
import { approvalService } from "./sessions/approvals.ts";
import { listenService } from "./sessions/listen.ts";
import { freshStartService } from "./sessions/freshStart.ts";
import { deviceFeed } from "./sessions/deviceFeed.ts";
import { houseService } from "./house/service.ts";
import { invitesService, type SignupMode } from "./house/invites.ts";
import { agentService } from "./agents/service.ts";
import { agentFeed } from "./delivery/feed.ts";
import { type LimitSettings, type LoginSettings, rateLimits } from "./auth/limits.ts";
import { pairingService } from "./agents/pairing.ts";
import { type WebhookOptions, webhookService } from "./delivery/webhooks.ts";
import { authService } from "./auth/service.ts";
import { type CredentialCacheSettings, credentialCache } from "./auth/credentialCache.ts";
import { memoryLoginBuckets, sharedLoginBuckets } from "./auth/loginLimits.ts";
import { logHead } from "./delivery/append.ts";
import { LiveBus } from "./delivery/bus.ts";
import { logLoader } from "./delivery/log.ts";
import { conversationService } from "./conversations/service.ts";
import { groupService } from "./conversations/groups.ts";
import { messagesService } from "./messages/service.ts";
import { pollService } from "./messages/polls.ts";
import { reactionService } from "./messages/reactions.ts";
import { type BlobStore, memoryBlobStore } from "./files/store.ts";
import { ephemeralFileKeys, type FileKeys } from "./files/keys.ts";
import { libraryService } from "./files/library.ts";
import { signerOf } from "./files/render.ts";
import { briefService } from "./knowledge/brief.ts";
import { handedStore } from "./knowledge/handed.ts";
import { notesService } from "./knowledge/notes.ts";
import { contextService } from "./knowledge/context.ts";
import { type SummarySettings, summaryStore } from "./knowledge/summary.ts";
import { summaryReads } from "./knowledge/summaryReads.ts";
import { extractiveGenerator, type ModelSettings, modelGenerator } from "./knowledge/summaryGenerators.ts";
import { filesService } from "./files/service.ts";
import { SPARSE_MATCHES, searchService } from "./search/service.ts";
import { SWEEP_INTERVAL_MS } from "./files/sweep.ts";

export type { AgentCaller, Caller, DeviceCaller, HumanCaller } from "./access/caller.ts";
export { LiveBus, type BusMessage, type LogEvent, reaches } from "./delivery/bus.ts";
export type { Delivered, Tracked } from "./delivery/subscription.ts";
export { APPEND_LOCK_KEY } from "./delivery/append.ts";
export { CursorExpired, DEFAULT_REPLAY_WINDOW_MS, type AgentFeed, type FeedBatch, forAgent } from "./delivery/feed.ts";
export { DEFAULT_LIMITS, DEFAULT_LOGIN, type LimitSettings, type LoginSettings } from "./auth/limits.ts";
export { type CredentialCacheSettings, DEFAULT_CREDENTIAL_CACHE } from "./auth/credentialCache.ts";
export { DEFAULT_WEBHOOK_CONCURRENCY, signWebhook, WEBHOOK_SIGNATURE_HEADER } from "./delivery/webhooks.ts";
export { PAIRING_TTL_MS, LINK_TTL_MS } from "./agents/pairing.ts";
export { DEMO_LOGINS, seedDemo } from "./admin/seed.ts";
export { hashPassword, sha256, verifyPassword } from "./auth/credentials.ts";
export { type Credential, type CredentialWatch, SESSION_TTL_MS } from "./auth/service.ts";
export { DEFAULT_GROUP_CHAT_QUOTA } from "./conversations/groups.ts";
export type { SignupMode } from "./house/invites.ts";
export type { Participation } from "./conversations/participation.ts";
export { isRelayCommand, MONITOR_PATH, type OpenedListener } from "./sessions/listen.ts";
export { type BlobStore, memoryBlobStore } from "./files/store.ts";
export { ephemeralFileKeys, type FileKeys, fileKeys, SIGNED_CONTENT_PATH } from "./files/keys.ts";
export { type Signer, signAgentMessage, signerOf } from "./files/render.ts";
export { localBlobStore } from "./files/local.ts";
export { type S3Settings, s3BlobStore } from "./files/s3.ts";
export { fileTooLarge } from "./files/upload.ts";
export {
  DEFAULT_SUMMARY_TIMEOUT_MS,
  extractiveGenerator,
  type ModelSettings,
  modelGenerator,
  type SummaryGenerator,
} from "./knowledge/summaryGenerators.ts";
export { BLOB_PREFIX, isOriginalFlag, type FilesService, type OpenedFile, type StoredUpload } from "./files/service.ts";

export interface HubOptions {
  /** Open group chats per project (§1.7; default DEFAULT_GROUP_CHAT_QUOTA). */
  groupChatQuota?: number;
  /**
   * Message search: hub-wide matches below which the words' matches come from the GIN index, above
   * which chat by chat (default SPARSE_MATCHES; tests set 0 to walk every search chat by chat).
   */
  searchSparseMatches?: number;
  /** Mentions a writer may ping per window (§1.7; default DEFAULT_PING_RATE). */
  pingRate?: PingRate;
  /** Where the hub is reached (MAITY_PUBLIC_URL, no trailing slash): the base URL agents are given, an origin of its own pages. */
  publicUrl?: string;
  /** How long an /updates or /ws cursor stays good after the first event it missed (default 15 min). */
  replayWindowMs?: number;
  /** Agent protocol rate limits per minute (B-360…B-363). */
  limits?: Partial<LimitSettings>;
  /** Login attempts per address, failures per handle, scrypt hashes at once (DEFAULT_LOGIN). */
  login?: Partial<LoginSettings>;
  /** How long a dashboard session lasts (default SESSION_TTL_MS, 30 days); live streams end at its expiry. */
  sessionTtlMs?: number;
  /** Authenticated credentials kept in memory (DEFAULT_CREDENTIAL_CACHE; `size: 0` keeps none). */
  credentialCache?: Partial<CredentialCacheSettings>;
  webhooks?: WebhookOptions;
  /** Where files live and the key that encrypts their names and signs their URLs. */
  files?: FileOptions;
  /** MAITY_SIGNUP: whether people may sign up without an invite (default "invite": only with one). */
  signup?: SignupMode;
  /** The rolling summary (DESIGN §4b): an OpenAI-compatible model (MAITY_SUMMARY_URL), else the built-in rules. */
  summary?: SummarySettings & { model?: ModelSettings | undefined };
}

export interface FileOptions {
  /** Default: in memory (tests); the server passes the local-disk or S3 store. */
  store?: BlobStore;
  /** Default: a random key (nothing signed survives the process). */
  keys?: FileKeys;
  /** The Bay plan's limit on a stored file (B-188), at most UPLOAD_HARD_CAP_BYTES. */
  maxUploadBytes?: number;
}

/** The application: services over one database and one live bus. */
export function createHub(database: Database, options: HubOptions = {}) {
  const db = database.prisma;
  const bus = new LiveBus();
  // The bus orders the log's events by their chain and reads the log only for a gap (bus.ts).
  bus.attach(() => logHead(db), logLoader(db));
  const queued: { webhooksQueued?: () => void } = {};
  const blobs = options.files?.store ?? memoryBlobStore();
  const messages = messagesService(db, database.sql, bus, queued, {
    ...(options.pingRate ? { pingRate: options.pingRate } : {}),
    blobs,
  });
  /** What each agent's clients were handed of the brief and notes (knowledge/handed.ts). */
  const handed = handedStore(database.sql);
  const memory = contextService(database.sql, bus, handed);
  const agents = agentService(db, bus, messages, handed, memory);
  const groups = groupService(db, bus, options.groupChatQuota === undefined ? {} : { quota: options.groupChatQuota });
  const freshStarts = freshStartService(db, bus);
  // B-289: a session's reading at 95 % starts its fresh start when its person let it.
  memory.onReading((agent, percent) => freshStarts.onReading(agent, percent));
  const limits = rateLimits(options.limits);
  const fileKeys = options.files?.keys ?? ephemeralFileKeys();
  // A webhook has no request to take an origin from: MAITY_PUBLIC_URL, else the path alone (docs/agent-api.md).
  const library = libraryService(db, blobs, fileKeys);
  const webhooks = webhookService(db, database.sql, agents, options.webhooks, {
    sign: signerOf(fileKeys, options.publicUrl ?? ""),
    count: library.agentFileCount,
    notices: memory.takeNotices,
  });
  queued.webhooksQueued = webhooks.kick;
  const files = filesService(
    db,
    blobs,
    fileKeys,
    options.files?.maxUploadBytes === undefined ? {} : { maxUploadBytes: options.files.maxUploadBytes },
  );
  // On PostgreSQL a cached credential is served only while the bus hears every instance's revocations.
  const credentials = credentialCache(bus, () => !database.pubsub || bus.hearing, options.credentialCache);
  // Login limits: one count for every instance on PostgreSQL; PGlite's process is the only one.
  const loginBuckets = database.engine === "postgresql" ? sharedLoginBuckets(database.sql) : memoryLoginBuckets(limits);
  const { model, ...summarySettings } = options.summary ?? {};
  const summaryRecords = summaryStore(
    database.sql,
    model ? modelGenerator(model) : extractiveGenerator,
    summarySettings,
  );
  let sweeping: ReturnType<typeof setInterval> | undefined;
  let unwatchSummaries: (() => void) | undefined;
  const admin = adminService(db, bus);
  const auth = authService(db, database.sql, bus, loginBuckets, credentials, {
    ...(options.login ? { login: options.login } : {}),
    ...(options.sessionTtlMs === undefined ? {} : { sessionTtlMs: options.sessionTtlMs }),
  });
  return {
    database,
    db,
    bus,
    /** MAITY_PUBLIC_URL, when the operator set it; else each request's own origin stands for it. */
    publicUrl: options.publicUrl,
    admin,
    /** People run their own house (DESIGN §4c): projects, members, agents, on the operator's services. */
    house: houseService(db, admin),
    /** Visiting agents sent home by their sponsors (DESIGN §4c, B-307). */
    visitors: visitorService(db, bus),
    /** The authenticated credentials kept in memory (credentialCache.ts). */
    credentials,
    auth,
    /** Invite links and sign-up (issue 29, DESIGN §4c). */
    invites: invitesService(db, auth, options.signup ? { signup: options.signup } : {}),
    conversations: conversationService(db, database.sql),
    /** Message search for people and agents (DESIGN §4d, docs/search.md). */
    search: searchService(db, database.sql, database.engine, options.searchSparseMatches ?? SPARSE_MATCHES),
    brief: briefService(database.sql, handed),
    notes: notesService(database.sql, bus, limits),
    handed,
    /** Context reports: rings, tidies, the 90 % notice (knowledge/context.ts). */
    memory,
    groups,
    messages,
    agents,
    /** The rolling summary: its records (regenerated in the background) and the reads of it. */
    summaries: {
      records: summaryRecords,
      ...summaryReads(db, summaryRecords, agents, messages.markDeliveredTo),
    },
    feed: agentFeed(
      db,
      bus,
      messages,
      handed,
      memory,
      options.replayWindowMs === undefined ? {} : { replayWindowMs: options.replayWindowMs },
    ),
    webhooks,
    /** Polls (004 v1.12, B-226 … B-240) and reactions. */
    polls: pollService(db, bus, messages, agents),
    reactions: reactionService(db, bus, agents),
    pairing: pairingService(db, bus),
    /** Device login and `bay_u_` credentials (issue 30, DESIGN §4e). */
    devices: deviceService(db, bus),
    /** Terminal sessions of people's devices (issue 30, DESIGN §4e). */
    sessions: sessionService(db, bus, groups, agents),
    /** A session's one listener: tickets, the monitor's state (B-332…B-343). */
    listen: listenService(db, bus),
    /** The device feed of the relay: its hosted sessions' messages and registrations (B-331). */
    deviceFeed: deviceFeed(db, bus),
    /** Fresh starts with a handoff note (B-289…B-296). */
    freshStarts,
    /** Decisions a session asks of one person (B-313). */
    approvals: approvalService(db, bus, messages, agents),
    limits,
    /** The file library and the Maity attachment reads (files/library.ts). */
    library,
    /** The bytes of attachments, and the key of their names and signed URLs. */
    blobs,
    fileKeys,
    /** Uploads, the bytes of a stored file, signed URLs, deletions and the sweep. */
    files,
    /** Joins the shared bus (PostgreSQL) and resumes queued webhook deliveries: what a server does at start. */
    async start() {
      if (database.pubsub) await bus.connect(database.pubsub);
      webhooks.start();
      // A chat's summary is regenerated as its messages are written, on whichever instance hears them first.
      unwatchSummaries ??= summaryRecords.watch(bus);
      // B-197: unsent uploads and orphan blobs go on a timer that never keeps the process alive.
      sweeping ??= setInterval(() => {
        files.sweep().catch((error) => console.error("maity: the file sweep failed", error));
      }, SWEEP_INTERVAL_MS);
      sweeping.unref();
    },
    health() {
      return {
        ok: database.migrations.pending.length === 0,
        database: {
          engine: database.engine,
          migrations: { applied: database.migrations.applied, pending: database.migrations.pending },
        },
        files: { store: blobs.kind },
      };
    },
    async close() {
      clearInterval(sweeping);
      sweeping = undefined;
      unwatchSummaries?.();
      unwatchSummaries = undefined;
      await summaryRecords.close();
      await webhooks.close();
      await bus.close();
      await database.close();
    },
  };
}
export type Hub = ReturnType<typeof createHub>;

export async function openHub(options: DatabaseOptions & HubOptions): Promise<Hub> {
  const hub = createHub(await openDatabase(options), options);
  await hub.start();
  return hub;
}

import {
  type AgentOperationInput,
  type AgentOperationName,
  type AgentOperationOutput,
  agentOperations,
} from "@maity/domain";
import {
  AgentApiError,
  answerOf,
  type AgentClientOptions,
  assertSecureTransport,
  type CallOptions,
  callAgentOperation,
} from "./call.ts";
import { agentEvents, type EventsOptions } from "./events.ts";

export * from "./call.ts";

// The agent side of the SDK (004 §2–§7, §11): every call is an operation of the one table in
// @maity/domain, so its input and answer are typed by the schemas the hub parses and renders with.
// Works wherever `fetch` does (Node 20, browsers).

/** How often a send is tried (same idempotency key each time) before the error is the caller's. */
const SEND_ATTEMPTS = 4;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
const newKey = (): string => globalThis.crypto.randomUUID();

/** What upload takes: a Blob (a File keeps its name) or, on Node, a path on disk. */
export type UploadSource = Blob | string;
export interface UploadOptions extends CallOptions {
  /** The name the hub stores (B-184); a path's base name or a File's name by default. */
  fileName?: string;
  /** B-196: keep the exact bytes (no image compression). */
  original?: boolean;
  /** The file's bytes handed to the connection so far, of `total` (where File exists: Node 20+, browsers). */
  onProgress?: (sent: number, total: number) => void;
}

/**
 * The file as a File whose stream counts the bytes read from it: fetch's multipart body pulls them
 * as the connection takes them, and still sends a Content-Length (the size is known), so the hub can
 * refuse a file over its cap before any byte (B-188).
 */
function counted(blob: Blob, name: string, onProgress: (sent: number, total: number) => void): Blob {
  class CountedFile extends File {
    override get size() {
      return blob.size;
    }
    override stream() {
      let sent = 0;
      return blob.stream().pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            sent += chunk.byteLength;
            onProgress(sent, blob.size);
            controller.enqueue(chunk);
          },
        }),
      ) as ReturnType<File["stream"]>;
    }
  }
  return new CountedFile([], name, { type: blob.type });
}

/**
 * POST /attachments (004 §10 step 1): one file as multipart/form-data, part `file`. A path is opened
 * with `fs.openAsBlob`, so the body streams from disk instead of being read whole (25 MB cap, B-188).
 */
export async function uploadFile(
  options: AgentClientOptions,
  source: UploadSource,
  o: UploadOptions = {},
): Promise<AgentOperationOutput<"upload">> {
  assertSecureTransport(options);
  let blob: Blob;
  let name = o.fileName;
  if (typeof source === "string") {
    const [{ openAsBlob }, { basename }] = await Promise.all([import("node:fs"), import("node:path")]);
    blob = await openAsBlob(source);
    name ??= basename(source);
  } else {
    blob = source;
    name ??= typeof File !== "undefined" && source instanceof File ? source.name : "file";
  }
  const form = new FormData();
  // A File keeps its name without append's third argument, which would copy it into a plain File.
  if (o.onProgress && typeof File !== "undefined") form.append("file", counted(blob, name, o.onProgress));
  else form.append("file", blob, name);
  // B-196: `original=1` on the query (the body is the file's multipart, not JSON).
  const path = `${agentOperations.upload.path}${o.original ? "?original=1" : ""}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.session) headers["x-maity-session"] = options.session;
  if (options.instanceId) headers["x-agent-instance"] = options.instanceId;
  const doFetch = options.fetch ?? globalThis.fetch;
  const res = await doFetch(`${options.baseUrl.replace(/\/+$/, "")}${path}`, {
    method: "POST",
    headers,
    body: form,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return (await answerOf(res)) as AgentOperationOutput<"upload">;
}

/** Worth another try with the same idempotency key: the hub did not answer, was busy, or failed. */
export const isRetryable = (error: unknown): boolean =>
  !(error instanceof AgentApiError) || error.status === 429 || error.status >= 500;

type Room = { conversationId: string };
/** What send takes: the operation's fields (files as `attachments`, B-198; a `card`, v1.11). */
export type SendInput = Without<"send", keyof Room | "idempotencyKey">;
type Without<K extends AgentOperationName, F extends string> = Omit<AgentOperationInput<K>, F>;

/**
 * An agent's connection to the hub: `connect({ baseUrl, token })`. Each method is one operation
 * of the agent API; `send` makes its own idempotency key and retries with it, so a retry after a
 * lost answer never posts twice.
 */
export function connect(options: AgentClientOptions & { token: string }) {
  const call = <K extends AgentOperationName>(name: K, input: AgentOperationInput<K>, callOptions?: CallOptions) =>
    callAgentOperation(options, name, input, callOptions);
  return {
    options,
    call,
    me: (o?: CallOptions) => call("me", {}, o),
    conversations: async (o?: CallOptions) => (await call("conversations", {}, o)).conversations,
    /** The envelope (§3); `features: "brief,notes"` hands the brief and the notes delta at most once (B-257, B-269). */
    context: (conversationId: string, query: Without<"context", keyof Room> = {}, o?: CallOptions) =>
      call("context", { ...query, conversationId }, o),
    /** The room's project and its brief (B-271); reading it counts as being handed it (B-272). */
    project: (conversationId: string, o?: CallOptions) => call("project", { conversationId }, o),
    /**
     * §6 the rolling summary: DERIVED_UNTRUSTED_CONTEXT up to a boundary, and every message after it raw
     * (B-105…B-108). Verify before acting on it; it never authorizes a reply (only shouldRespond does).
     */
    summary: (conversationId: string, o?: CallOptions) => call("summary", { conversationId }, o),
    /** v1.17 notes (B-243): what the agent may read here, without bodies. */
    notes: async (conversationId: string, o?: CallOptions) => (await call("notes", { conversationId }, o)).notes,
    /** One note with its body; `conversationId` is the room it is read from (a shelf note's quiet line goes there). */
    note: (noteId: string, conversationId?: string, o?: CallOptions) =>
      call("noteGet", { noteId, ...(conversationId === undefined ? {} : { conversationId }) }, o),
    /** A new note: this chat's, or the project's with scope "project"; never pinned (people pin). */
    createNote: (input: AgentOperationInput<"noteCreate">, o?: CallOptions) => call("noteCreate", input, o),
    /** An edit from `baseVersion`; a stale one is NOTE_VERSION_CONFLICT with the current `version`. */
    updateNote: (input: AgentOperationInput<"notePatch">, o?: CallOptions) => call("notePatch", input, o),
    /** POST /context: memory usage, or compact_end / session_start, which re-arm the brief and the notes. */
    reportContext: (input: AgentOperationInput<"contextReport">, o?: CallOptions) => call("contextReport", input, o),
    messages: (conversationId: string, query: Without<"messages", keyof Room> = {}, o?: CallOptions) =>
      call("messages", { ...query, conversationId }, o),
    /** Sends once, whatever happens to the connection: one key for every attempt. */
    async send(
      conversationId: string,
      input: SendInput,
      o: CallOptions & { idempotencyKey?: string; attempts?: number } = {},
    ) {
      const idempotencyKey = o.idempotencyKey ?? newKey();
      const attempts = Math.max(1, o.attempts ?? SEND_ATTEMPTS);
      for (let attempt = 1; ; attempt++) {
        try {
          return await call("send", { ...input, conversationId, idempotencyKey }, o);
        } catch (error) {
          if (attempt >= attempts || !isRetryable(error) || o.signal?.aborted) throw error;
          const said = error instanceof AgentApiError ? error.retryAfter : null;
          const wait = said !== null ? said * 1000 : 250 * 2 ** attempt;
          await sleep(Math.min(wait, 10_000), o.signal);
        }
      }
    },
    typing: (conversationId: string, o?: CallOptions) => call("typing", { conversationId }, o),
    /** 004 §10: one file up; send its attachmentId with `send(…, { attachments })` within 24 h (B-197). */
    upload: (source: UploadSource, o?: UploadOptions) => uploadFile(options, source, o),
    /** B-203: the room's file library, without URLs; fileLink mints one fresh signed URL (B-204). */
    files: (conversationId: string, o?: CallOptions) => call("files", { conversationId }, o),
    fileLink: (conversationId: string, attachmentId: string, o?: CallOptions) =>
      call("fileLink", { conversationId, attachmentId }, o),
    /** DESIGN §4d: messages of the agent's rooms matching `q`, newest first; only what it may read now. */
    search: (query: AgentOperationInput<"search">, o?: CallOptions) => call("search", query, o),
    /** v1.12 (B-226): a poll in a room; answers the card.poll message. */
    pollCreate: (input: AgentOperationInput<"pollCreate">, o?: CallOptions) => call("pollCreate", input, o),
    /** v1.9 join_session_group (B-323): enter the Bay's shared Sessions group. */
    joinSessionGroup: (o?: CallOptions) => call("joinSessionGroup", {}, o),
    /** B-228: the complete set of zero-based indexes held; [] withdraws. */
    pollVote: (pollId: string, optionIndexes: number[], o?: CallOptions) =>
      call("pollVote", { pollId, optionIndexes }, o),
    pollGet: (pollId: string, o?: CallOptions) => call("pollGet", { pollId }, o),
    react: (conversationId: string, messageId: string, emoji: string, o?: CallOptions) =>
      call("react", { conversationId, messageId, emoji }, o),
    unreact: (conversationId: string, messageId: string, emoji: string, o?: CallOptions) =>
      call("unreact", { conversationId, messageId, emoji }, o),
    agents: async (o?: CallOptions) => (await call("agents", {}, o)).agents,
    contactAgent: (input: AgentOperationInput<"contact">, o?: CallOptions) => call("contact", input, o),
    updates: (query: AgentOperationInput<"updates"> = {}, o?: CallOptions) => call("updates", query, o),
    /**
     * The agent's message events across all its rooms (004 §11), each once: /ws, or /updates where a
     * socket cannot carry the token; resumes from its cursor after drops and restarts (events.ts).
     */
    events: (o: EventsOptions = {}) => agentEvents(options, o),
    webhook: {
      set: (input: AgentOperationInput<"webhookSet">, o?: CallOptions) => call("webhookSet", input, o),
      get: (o?: CallOptions) => call("webhookGet", {}, o),
      remove: (o?: CallOptions) => call("webhookRemove", {}, o),
    },
  };
}
export type AgentClient = ReturnType<typeof connect>;

type PreauthOptions = Pick<AgentClientOptions, "fetch" | "allowInsecureHttp">;
/** §2: redeem a pairing code; the answer is the credentials file's `{ baseUrl, token, agent }`. */
export const pair = (baseUrl: string, code: string, o: PreauthOptions = {}) =>
  callAgentOperation({ baseUrl, ...o }, "pair", { code });
/** §2 reverse linking: open a request the owner approves at `approveUrl`. */
export const openLink = (baseUrl: string, label?: string, o: PreauthOptions = {}) =>
  callAgentOperation({ baseUrl, ...o }, "link", label === undefined ? {} : { label });
/** §2: `{status: "pending"}` until the owner approves, then the credentials once. */
export const pollLink = (baseUrl: string, id: string, secret: string, o: PreauthOptions = {}) =>
  callAgentOperation({ baseUrl, ...o }, "linkPoll", { id, secret });

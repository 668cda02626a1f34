// The agent's commands (004 §2–§7): pair, link, whoami, conversations, context, check, watch,
// send, listen, hook, mcp. Each writes its answer to stdout (JSON with --json) and every note or
// refusal to stderr, so a script or an MCP client reads only what it asked for.
import { type AgentClient, connect, openLink, pair, pollLink } from "@maity/client";
import { type AgentMessage, PROTOCOL_VERSION } from "@maity/domain";
import { statSync } from "node:fs";
import { hostname } from "node:os";
import { checkUploadExtension, downloadAttachment, LocalFileRefusal } from "@maity/client/download";
import qrcode from "qrcode-terminal";
import type { AgentCommand } from "./commands.ts";
import {
  configDirOf,
  type Env,
  envOf,
  type Identity,
  preauthBaseUrl,
  type RoomCursor,
  readState,
  resolveIdentity,
  stateKey,
  updateState,
  writeCredentials,
} from "./config.ts";
import { eventsOf } from "./events.ts";
import { HOOK_MIN_INTERVAL_MS, hookAnswer, hookReason, isContextEvent, parseHookInput, type Waiting } from "./hook.ts";
import {
  clock,
  describeError,
  isShown,
  renderFile,
  renderLine,
  renderRoom,
  renderTally,
  sanitize,
  sizeText,
} from "./render.ts";

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Env;
  /** The hook's stdin (Claude Code's JSON); empty when there is none. */
  readStdin(): Promise<string>;
  /** Ends listen and watch (Ctrl-C). */
  signal: AbortSignal;
}

/** The error context of the command that failed, for the one-line message (render.ts). */
export class CommandError extends Error {
  constructor(
    readonly original: unknown,
    readonly baseUrl: string,
    readonly conversationId: string | undefined,
    readonly source: Identity["source"] | undefined,
  ) {
    super(
      describeError(original, {
        baseUrl,
        ...(conversationId ? { conversationId } : {}),
        ...(source ? { source } : {}),
      }),
    );
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
const json = (value: unknown): string => JSON.stringify(value, null, 2);

// ---- B-035: the protocol version --------------------------------------------------------------

/**
 * B-035: a minor change is one quiet line, a major one a warning a person notices; neither stops
 * the command (refusing over a number is worse than the disease, 004 §2). Compared with the
 * version seen last, or — the first time — with the one this CLI was built against.
 */
export function versionNote(
  previous: string | undefined,
  current: string,
): { level: "none" | "quiet" | "loud"; text: string } {
  const before = previous ?? PROTOCOL_VERSION;
  if (before === current) return { level: "none", text: "" };
  const major = (v: string) => v.split(".")[0];
  if (major(before) === major(current)) {
    return {
      level: "quiet",
      text: `note: the hub speaks agent protocol ${current} (last seen ${before}); its changelog says what is new`,
    };
  }
  const bar = "!".repeat(72);
  return {
    level: "loud",
    text: [
      bar,
      `WARNING: the hub's agent protocol changed MAJOR version: ${before} → ${current}.`,
      "Calls this agent makes may now break. Read the changelog at the top of the protocol document",
      "before trusting its answers. (The command goes on: a version number never stops it.)",
      bar,
    ].join("\n"),
  };
}

/** B-161: plain http to a hub on another machine only when the environment says the network is trusted. */
const insecureAllowed = (io: Io): boolean => io.env.MAITY_ALLOW_INSECURE_HTTP === "1";

// ---- a session: the client, and who the agent is ------------------------------------------------

interface Session {
  identity: Identity;
  client: AgentClient;
  /** The agent: from the credentials file, or (a bare token, B-024) GET /me once per process. */
  me(): Promise<{ id: string; name: string }>;
  key(): Promise<string>;
}

function openSession(io: Io): Session {
  const identity = resolveIdentity(io.env);
  const client = connect({ baseUrl: identity.baseUrl, token: identity.token, allowInsecureHttp: insecureAllowed(io) });
  let who: Promise<{ id: string; name: string }> | null = identity.agent ? Promise.resolve(identity.agent) : null;
  const me = () => {
    who ??= client.me().then((answer) => {
      noteVersion(io, identity, answer.id, answer.protocolVersion);
      return { id: answer.id, name: answer.name };
    });
    return who;
  };
  return { identity, client, me, key: async () => stateKey(identity.baseUrl, (await me()).id) };
}

function noteVersion(io: Io, identity: Identity, agentId: string, current: string): void {
  const key = stateKey(identity.baseUrl, agentId);
  const note = versionNote(readState(identity.configDir, key).protocolVersion, current);
  if (note.level !== "none") io.err(note.text);
  updateState(identity.configDir, key, (state) => {
    state.protocolVersion = current;
  });
}

// ---- reading a room: B-093 anchor, B-094 since the cursor ----------------------------------------

const PAGE = 200;

/** B-093: "now" is the room's newest message as the hub has it (no clock of this computer involved). */
async function anchor(client: AgentClient, conversationId: string): Promise<RoomCursor> {
  const newest = (await client.messages(conversationId, { limit: 1 })).messages[0];
  return newest ? { since: newest.createdAt, ids: [newest.id] } : { since: new Date(0).toISOString(), ids: [] };
}

/**
 * B-094: the messages after the cursor, oldest first, and the cursor after them. It asks from one
 * millisecond before the cursor's time and drops the ids already read there, so a message written
 * in the same millisecond as the last one read is not lost.
 */
async function readAfter(
  client: AgentClient,
  conversationId: string,
  cursor: RoomCursor,
): Promise<{ messages: AgentMessage[]; cursor: RoomCursor }> {
  const messages: AgentMessage[] = [];
  let { since, ids } = cursor;
  for (let page = 0; page < 100; page++) {
    const from = new Date(Date.parse(since) - 1).toISOString();
    const answer = (await client.messages(conversationId, { since: from, limit: PAGE })).messages;
    const read = new Set(ids);
    const fresh = answer.filter((m) => !read.has(m.id));
    messages.push(...fresh);
    const last = fresh.at(-1);
    if (!last) break;
    const atLast = fresh.filter((m) => m.createdAt === last.createdAt).map((m) => m.id);
    ids = last.createdAt === since ? [...ids, ...atLast] : atLast;
    since = last.createdAt;
    if (answer.length < PAGE) break;
  }
  return { messages, cursor: { since, ids } };
}

/** One check: anchor the first time (nothing printed), else read on and advance. */
async function checkOnce(
  session: Session,
  conversationId: string,
): Promise<{ anchored: boolean; shown: AgentMessage[] }> {
  const { identity, client } = session;
  const [me, key] = [await session.me(), await session.key()];
  const cursor = readState(identity.configDir, key).cursors[conversationId];
  if (!cursor) {
    const first = await anchor(client, conversationId);
    updateState(identity.configDir, key, (state) => {
      state.cursors[conversationId] = first;
    });
    return { anchored: true, shown: [] };
  }
  const { messages, cursor: next } = await readAfter(client, conversationId, cursor);
  // The cursor moves past own and deleted messages too: they are read, just not shown.
  if (messages.length) {
    updateState(identity.configDir, key, (state) => {
      state.cursors[conversationId] = next;
    });
  }
  return { anchored: false, shown: messages.filter((m) => isShown(m, me.id)) };
}

// ---- the commands ------------------------------------------------------------------------------------

/** Runs one agent command; answers the exit code. Errors are thrown as CommandError. */
export async function runAgent(command: AgentCommand, asJson: boolean, io: Io): Promise<number> {
  switch (command.kind) {
    case "pair":
      return pairCommand(command.code, preauthBaseUrl(io.env, command.url), asJson, io);
    case "link":
      return linkCommand(command.label, preauthBaseUrl(io.env, command.url), asJson, io);
    default:
      break;
  }
  const session = openSession(io);
  const conversationId = "conversationId" in command ? command.conversationId : undefined;
  try {
    return await runWithSession(command, session, asJson, io);
  } catch (error) {
    throw new CommandError(error, session.identity.baseUrl, conversationId, session.identity.source);
  }
}

async function runWithSession(command: AgentCommand, session: Session, asJson: boolean, io: Io): Promise<number> {
  const { client, identity } = session;
  switch (command.kind) {
    case "whoami": {
      const answer = await client.me();
      noteVersion(io, identity, answer.id, answer.protocolVersion);
      // The token is never printed (B-017): only who it is and where.
      if (asJson) io.out(json({ ...answer, baseUrl: identity.baseUrl, credentials: identity.source }));
      else {
        const from = identity.source === "env" ? "MAITY_TOKEN" : identity.configDir;
        io.out(
          `${sanitize(answer.name)} (${answer.id}) on ${identity.baseUrl}, agent protocol ${answer.protocolVersion}; credentials from ${from}`,
        );
      }
      return 0;
    }
    case "conversations": {
      const rooms = await client.conversations();
      if (asJson) io.out(json({ conversations: rooms }));
      else if (!rooms.length) io.err("no conversations yet: an owner adds this agent to a project's chats");
      else io.out(rooms.map(renderRoom).join("\n"));
      return 0;
    }
    case "context": {
      const envelope = await client.context(command.conversationId);
      if (asJson) {
        io.out(json(envelope));
        return 0;
      }
      const { conversation, project, participants, policy, you } = envelope;
      const lines = [
        `${conversation.title === null ? "(direct)" : sanitize(conversation.title)} [${conversation.type}] in ${sanitize(project.name)}`,
        `you: ${sanitize(you.name)} (${you.id})${you.isOrchestrator ? ", the orchestrator" : ""}`,
        `policy: ${policy.effectiveRule}${policy.maxAgentRounds === null ? "" : `, at most ${policy.maxAgentRounds} agent rounds`}`,
        "participants:",
        ...participants.map(
          (p) => `  ${sanitize(p.name)} (${p.kind}, ${p.role})${p.description ? `: ${sanitize(p.description)}` : ""}`,
        ),
        "instructions:",
        envelope.instructions,
      ];
      io.out(lines.join("\n"));
      return 0;
    }
    case "check": {
      const me = await session.me();
      const result = await checkOnce(session, command.conversationId);
      if (asJson)
        io.out(json({ conversationId: command.conversationId, anchored: result.anchored, messages: result.shown }));
      else if (result.anchored) io.err("cursor anchored at now: from here on, check prints what is new");
      else if (result.shown.length) io.out(result.shown.map((m) => renderLine(m, me.id)).join("\n"));
      return 0;
    }
    case "watch":
      return watch(session, command.conversationId, command.interval, command.timeout, asJson, io);
    case "send": {
      const ids = command.files?.length ? await uploadAll(client, command.files, io) : [];
      const sent = await client.send(command.conversationId, {
        content: command.content,
        ...(command.replyTo ? { replyToMessageId: command.replyTo } : {}),
        ...(ids.length ? { attachments: ids.map((attachmentId) => ({ attachmentId })) } : {}),
      });
      if (asJson) io.out(json(sent));
      else io.out(`sent ${sent.id} at ${clock(sent.createdAt)}${ids.length ? ` with ${ids.length} file(s)` : ""}`);
      return 0;
    }
    case "files": {
      const listing = await client.files(command.conversationId);
      if (asJson) io.out(json(listing));
      else if (!listing.files.length) io.err("no files in this conversation");
      else io.out(listing.files.map(renderFile).join("\n"));
      return 0;
    }
    case "download": {
      // B-215: the hub's own origin only, 25 MB, never overwriting.
      const saved = await downloadAttachment(command.url, {
        hubUrl: identity.baseUrl,
        ...(command.dir ? { saveDir: command.dir } : {}),
      });
      if (asJson) io.out(json(saved));
      else io.out(`saved ${saved.path} (${sizeText(saved.sizeBytes)})`);
      return 0;
    }
    case "poll": {
      const message = await client.pollCreate({
        conversationId: command.conversationId,
        question: command.question,
        options: command.options,
        ...(command.multiple ? { allowMultiple: true } : {}),
      });
      if (asJson) io.out(json(message));
      else
        io.out(
          `poll ${String(message.cardPayload?.pollId ?? "")} sent as ${message.id} at ${clock(message.createdAt)}`,
        );
      return 0;
    }
    case "vote": {
      // The poll shows answers from 1; the hub counts from 0 (B-228).
      const poll = await client.pollVote(
        command.pollId,
        command.answers.map((n) => n - 1),
      );
      if (asJson) io.out(json(poll));
      else io.out(renderTally(poll));
      return 0;
    }
    case "react": {
      const { conversationId, messageId, emoji } = command;
      const answer = command.remove
        ? await client.unreact(conversationId, messageId, emoji)
        : await client.react(conversationId, messageId, emoji);
      if (asJson) io.out(json(answer));
      else
        io.out(
          `reactions on ${answer.messageId}: ${answer.reactions.map((r) => `${sanitize(r.emoji)} ${r.count}`).join(", ") || "none"}`,
        );
      return 0;
    }
    case "listen":
      return listen(session, asJson, io);
    case "hook":
      return hook(session, io);
    case "mcp":
      return mcp(session, io);
    case "pair":
    case "link":
      throw new Error("unreachable");
  }
}

/** Files above this size get a line on stderr as their upload starts and ends. */
const PROGRESS_BYTES = 1024 * 1024;

/**
 * B-213 B-214: every file checked (type by extension, present, a regular file) before the first
 * upload, so a refusal leaves nothing on the hub; then uploaded one by one, in order.
 */
async function uploadAll(client: AgentClient, paths: string[], io: Io): Promise<string[]> {
  const sizes = paths.map((path) => {
    checkUploadExtension(path);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      throw new LocalFileRefusal(`${path}: no such file; nothing was uploaded`);
    }
    if (!stat.isFile()) throw new LocalFileRefusal(`${path}: not a file; nothing was uploaded`);
    return stat.size;
  });
  const ids: string[] = [];
  for (const [i, path] of paths.entries()) {
    const size = sizes[i] ?? 0;
    const large = size >= PROGRESS_BYTES;
    if (large) io.err(`uploading ${i + 1}/${paths.length} ${path} (${sizeText(size)})…`);
    const uploaded = await client.upload(path);
    if (large) io.err(`uploaded ${i + 1}/${paths.length} ${path} → ${uploaded.attachmentId}`);
    ids.push(uploaded.attachmentId);
  }
  return ids;
}

/**
 * B-091 B-092: poll every `interval` s until something is printed (exit 0) or `timeout` s pass
 * quietly (exit 2: "watch again"). The first watch of a room anchors first (B-093), so only what
 * arrives from then on counts.
 */
async function watch(
  session: Session,
  conversationId: string,
  interval: number,
  timeout: number,
  asJson: boolean,
  io: Io,
): Promise<number> {
  const me = await session.me();
  const deadline = Date.now() + timeout * 1000;
  for (;;) {
    const { shown } = await checkOnce(session, conversationId);
    if (shown.length) {
      if (asJson) io.out(json({ conversationId, messages: shown }));
      else io.out(shown.map((m) => renderLine(m, me.id)).join("\n"));
      return 0;
    }
    if (io.signal.aborted || Date.now() + interval * 1000 > deadline) break;
    await sleep(interval * 1000, io.signal);
    if (io.signal.aborted) break;
  }
  if (asJson) io.out(json({ conversationId, messages: [], timedOut: true }));
  return 2;
}

/** Every room, one line per message (its conversation id first), until Ctrl-C. */
async function listen(session: Session, asJson: boolean, io: Io): Promise<number> {
  const me = await session.me();
  io.err(`listening as ${sanitize(me.name)} (${me.id}) on ${session.identity.baseUrl}: Ctrl-C to stop`);
  const events = eventsOf(session.client)({ signal: io.signal, onNotice: (line) => io.err(line) });
  for await (const event of events) {
    if (!isShown(event.message, me.id)) continue;
    if (asJson) io.out(JSON.stringify(event));
    else io.out(`${event.conversationId} ${renderLine(event.message, me.id)}`);
  }
  return 0;
}

/**
 * The messages routed to this agent (shouldRespond) in any room since the last hook run, from one
 * /updates call (wait=0) on a cursor kept beside the credentials. The first run anchors at now.
 * Prints nothing when nothing waits; never fails the IDE's turn over a busy hub (429: silent).
 */
async function hook(session: Session, io: Io): Promise<number> {
  const input = parseHookInput(await io.readStdin());
  // A Stop that follows a blocked Stop: do not look (the cursor stays, the messages keep).
  if (input.stop_hook_active && !isContextEvent(input)) return 0;
  const { client, identity } = session;
  const me = await session.me();
  const key = await session.key();
  const saved = readState(identity.configDir, key).hook;
  const now = Date.now();
  if (saved && isContextEvent(input) && now - Date.parse(saved.at) < hookInterval(io.env)) return 0;
  const waiting: Waiting[] = [];
  let cursor: string;
  try {
    if (!saved) {
      cursor = (await client.updates({ wait: 0 })).cursor;
    } else {
      cursor = saved.cursor;
      try {
        for (let round = 0; round < 10; round++) {
          const answer = await client.updates({ cursor, wait: 0 });
          for (const event of answer.events) {
            if (event.message.shouldRespond && isShown(event.message, me.id)) {
              waiting.push({
                conversationId: event.conversationId,
                title: event.conversation.title,
                message: event.message,
              });
            }
          }
          cursor = answer.cursor;
          if (!answer.events.length) break;
        }
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === "CURSOR_EXPIRED")) throw error;
        // B-145: past the replay window, catch up room by room since the last run, then start at now.
        waiting.push(...(await catchUp(client, me.id, new Date(Date.parse(saved.at) - 2_000).toISOString())));
        cursor = (await client.updates({ wait: 0 })).cursor;
      }
    }
  } catch (error) {
    if (error instanceof Error && "status" in error && error.status === 429) {
      io.err("maity hook: the hub asked to slow down; looking again at the next hook");
      return 0;
    }
    throw error;
  }
  updateState(identity.configDir, key, (state) => {
    state.hook = { cursor, at: new Date(now).toISOString() };
  });
  if (!waiting.length) return 0;
  const answer = hookAnswer(input, hookReason(waiting, me));
  if (answer) io.out(JSON.stringify(answer));
  return 0;
}

/** MAITY_HOOK_INTERVAL: seconds between two looks on PostToolUse (default 5). */
function hookInterval(env: Env): number {
  const value = envOf(env, "HOOK_INTERVAL");
  const seconds = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : HOOK_MIN_INTERVAL_MS;
}

async function catchUp(client: AgentClient, me: string, since: string): Promise<Waiting[]> {
  const waiting: Waiting[] = [];
  for (const room of await client.conversations()) {
    const { messages } = await client.messages(room.id, { since, limit: PAGE });
    for (const m of messages)
      if (m.shouldRespond && isShown(m, me)) waiting.push({ conversationId: room.id, title: room.title, message: m });
  }
  return waiting;
}

/**
 * The local stdio MCP server (B-347) of @maity/mcp, on the same credentials as every command
 * (B-027). Loaded only here, by name, so the CLI runs where that package is not installed; stdout
 * is the protocol's alone from here on.
 */
async function mcp(session: Session, io: Io): Promise<number> {
  const name = "@maity/mcp";
  let module: { serveStdio?: (client: AgentClient, local: object) => Promise<void> };
  try {
    module = await import(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      io.err("maity mcp: the MCP server (@maity/mcp) is not installed in this build of the CLI");
      return 1;
    }
    throw error;
  }
  if (typeof module.serveStdio !== "function") {
    io.err("maity mcp: @maity/mcp has no serveStdio(client)");
    return 1;
  }
  await module.serveStdio(session.client, {});
  return 0;
}

// ---- pre-auth: pair and link (004 §2) --------------------------------------------------------------

/** B-017 B-020: redeem the code, write `{ baseUrl, token, agent }` (0600 in 0700); never print the token. */
async function pairCommand(code: string, baseUrl: string, asJson: boolean, io: Io): Promise<number> {
  const configDir = resolveConfigDir(io);
  let credential: Awaited<ReturnType<typeof pair>>;
  try {
    credential = await pair(baseUrl, code, { allowInsecureHttp: insecureAllowed(io) });
  } catch (error) {
    throw new CommandError(error, baseUrl, undefined, undefined);
  }
  const file = writeCredentials(configDir, credential);
  reportLinked(credential, file, asJson, io);
  return 0;
}

const resolveConfigDir = (io: Io): string => configDirOf(io.env);

function reportLinked(
  credential: { baseUrl: string; agent: { id: string; name: string } },
  file: string,
  asJson: boolean,
  io: Io,
): void {
  if (asJson)
    io.out(
      JSON.stringify({ status: "approved", baseUrl: credential.baseUrl, agent: credential.agent, credentials: file }),
    );
  else
    io.out(
      `paired as ${sanitize(credential.agent.name)} (${credential.agent.id}) on ${credential.baseUrl}; credentials in ${file}`,
    );
}

/**
 * Reverse linking: a QR code and the approve URL (the only things shown: never a token), then a
 * poll every pollIntervalSeconds with a progress line on stderr until the owner approves or the
 * request expires; the credentials are written like pair's.
 */
async function linkCommand(label: string | undefined, baseUrl: string, asJson: boolean, io: Io): Promise<number> {
  const configDir = resolveConfigDir(io);
  try {
    const opened = await openLink(baseUrl, label ?? defaultLabel(), { allowInsecureHttp: insecureAllowed(io) });
    if (asJson) {
      io.out(
        JSON.stringify({
          status: "pending",
          approveUrl: opened.approveUrl,
          code: opened.code,
          expiresAt: opened.expiresAt,
        }),
      );
    } else {
      let qr = "";
      qrcode.generate(opened.approveUrl, { small: true }, (text) => {
        qr = text;
      });
      io.out(
        `${qr}\nScan the code, or open ${opened.approveUrl} (code ${opened.code}), and approve this computer for one of your agents.`,
      );
    }
    const expires = Date.parse(opened.expiresAt);
    const start = Date.now();
    for (;;) {
      if (io.signal.aborted) return 130;
      const answer = await pollLink(baseUrl, opened.id, opened.secret, {
        allowInsecureHttp: insecureAllowed(io),
      }).catch((error: unknown) => {
        // The hub answers 404 once the request expired (or was collected): say it in those words.
        if (error instanceof Error && "status" in error && error.status === 404) return { status: "expired" as const };
        throw error;
      });
      if (answer.status === "approved") {
        if (process.stderr.isTTY) io.err("");
        const file = writeCredentials(configDir, answer);
        reportLinked(answer, file, asJson, io);
        return 0;
      }
      if (answer.status === "expired" || Date.now() >= expires) {
        io.err("\nthe link request expired before it was approved: run maity link again");
        return 1;
      }
      const waited = Math.round((Date.now() - start) / 1000);
      const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
      progress(io, `waiting for approval… ${waited} s (expires in ${left} s)`);
      await sleep(Math.max(1, opened.pollIntervalSeconds) * 1000, io.signal);
    }
  } catch (error) {
    throw new CommandError(error, baseUrl, undefined, undefined);
  }
}

/** A progress line: rewritten in place on a terminal, one line each otherwise (a log). */
function progress(io: Io, line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${line}\u001b[K`);
  else io.err(line);
}

const defaultLabel = (): string => `maity CLI on ${hostname() || "this computer"}`.slice(0, 80);

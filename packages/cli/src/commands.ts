import { parseArgs } from "node:util";
import { ATTACHMENTS_PER_MESSAGE_MAX } from "@maity/domain";
import type { SearchCommand } from "./agent/search.ts";

/** One command, parsed from argv (pure: tested without a hub). */
export type Command = { kind: "help"; topic?: "hook" } | AdminCommand | AgentCommand;

/** `maity admin …`: the operator's commands (MAITY_ADMIN_TOKEN). */
export type AdminCommand =
  | { kind: "human"; handle: string; name: string; password: string }
  | { kind: "agent"; owner: string; handle: string; name?: string; description?: string }
  | { kind: "project"; owner: string; slug: string; name: string }
  | { kind: "member-add"; owner: string; slug: string; memberId: string; admin: boolean }
  | { kind: "member-remove"; owner: string; slug: string; memberId: string; reason: "removed" | "isolated" }
  | { kind: "archive"; owner: string; slug: string }
  | { kind: "token"; memberId: string }
  | { kind: "revoke"; token: string };

/** The agent's commands (004 §2–§7): they act with the agent's credentials. */
export type AgentCommand =
  | { kind: "pair"; code: string; url?: string }
  | { kind: "link"; label?: string; url?: string }
  | { kind: "login"; label?: string; url?: string }
  | { kind: "logout" }
  | { kind: "whoami" }
  | { kind: "conversations" }
  | { kind: "context"; conversationId: string }
  | { kind: "check"; conversationId: string }
  /** B-091: seconds between polls (default 5) and the quiet timeout (default 300). */
  | { kind: "watch"; conversationId: string; interval: number; timeout: number }
  /** B-213: files (paths) uploaded before the send, at most ATTACHMENTS_PER_MESSAGE_MAX. */
  | { kind: "send"; conversationId: string; content: string; replyTo?: string; files?: string[] }
  | { kind: "files"; conversationId: string }
  | SearchCommand
  | { kind: "download"; url: string; dir?: string }
  | { kind: "poll"; conversationId: string; question: string; options: string[]; multiple: boolean }
  /** Answers as the poll shows them, from 1; none withdraws (B-228). */
  | { kind: "vote"; pollId: string; answers: number[] }
  | { kind: "react"; conversationId: string; messageId: string; emoji: string; remove: boolean }
  | { kind: "listen" }
  | { kind: "hook" }
  | { kind: "mcp"; bay?: string }
  | { kind: "sessions"; bay?: string }
  /** 004 v1.15–v1.17: the room's brief, its notes, one note, and writing one. */
  | { kind: "brief"; conversationId: string }
  | { kind: "notes"; conversationId: string }
  /** 004 §6: the rolling summary and the messages after it. */
  | { kind: "summary"; conversationId: string }
  | { kind: "note-show"; noteId: string; conversationId?: string }
  /** No body: $EDITOR opens (an empty file for a new note, the current body for an edit). */
  | { kind: "note-create"; conversationId: string; title: string; body?: string; scope: "chat" | "project" }
  | {
      kind: "note-edit";
      noteId: string;
      baseVersion?: number;
      title?: string;
      body?: string;
      conversationId?: string;
    };

export const ADMIN_KINDS = [
  "human",
  "agent",
  "project",
  "member-add",
  "member-remove",
  "archive",
  "token",
  "revoke",
] as const;
export const isAdminCommand = (command: Command): command is AdminCommand =>
  (ADMIN_KINDS as readonly string[]).includes(command.kind);

export type Parsed = { command: Command; json: boolean };

export class UsageError extends Error {}

export { USAGE } from "./usage.ts";

/** The options each command takes besides --json and --help (parseArgs knows all of them). */
const OPTIONS_OF: Record<string, readonly string[]> = {
  pair: ["url"],
  link: ["label", "url"],
  login: ["label", "url"],
  mcp: ["bay"],
  sessions: ["bay"],
  watch: ["interval", "timeout"],
  send: ["reply-to", "file"],
  search: ["room", "limit", "cursor"],
  download: ["dir"],
  poll: ["multiple"],
  react: ["remove"],
  note: ["title", "body", "scope", "base-version", "conversation"],
  admin: ["name", "password", "description", "admin", "reason"],
};

/** Seconds as a number: B-091's --interval (more than 0) and --timeout (0 or more). */
function seconds(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < min || (min > 0 && n === 0)) {
    throw new UsageError(`${name} must be a number of seconds${min > 0 ? " above 0" : ", 0 or more"}, got "${value}"`);
  }
  return n;
}

/** `note <id>`, `note create <conversation_id> …`, `note edit <note_id> …` (004 v1.17). */
function parseNoteCommand(args: string[], values: Values): AgentCommand {
  const [verb, target] = args;
  const conversation = values.conversation !== undefined ? { conversationId: values.conversation } : {};
  const only = (allowed: string[], what: string) => {
    for (const o of ["title", "body", "scope", "base-version", "conversation"] as const)
      if (values[o] !== undefined && !allowed.includes(o)) throw new UsageError(`--${o} is not an option of "${what}"`);
  };
  if (verb === "create") {
    noMore(args, 2, "note create");
    only(["title", "body", "scope"], "note create");
    const scope = values.scope ?? "chat";
    if (scope !== "chat" && scope !== "project")
      throw new UsageError(`--scope must be chat or project, got "${scope}"`);
    return {
      kind: "note-create",
      conversationId: need(target, "<conversation_id>"),
      title: need(values.title, "--title"),
      scope,
      ...(values.body !== undefined ? { body: values.body } : {}),
    };
  }
  if (verb === "edit") {
    noMore(args, 2, "note edit");
    only(["title", "body", "base-version", "conversation"], "note edit");
    const base = values["base-version"];
    if (base !== undefined && (!/^\d+$/.test(base) || Number(base) < 1))
      throw new UsageError(`--base-version is the version you read, from 1; got "${base}"`);
    return {
      kind: "note-edit",
      noteId: need(target, "<note_id>"),
      ...(base !== undefined ? { baseVersion: Number(base) } : {}),
      ...(values.title !== undefined ? { title: values.title } : {}),
      ...(values.body !== undefined ? { body: values.body } : {}),
      ...conversation,
    };
  }
  noMore(args, 1, "note");
  only(["conversation"], "note");
  return { kind: "note-show", noteId: need(verb, "<note_id>, create or edit"), ...conversation };
}

function need(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`missing ${name}`);
  return value;
}

function projectRef(value: string | undefined): { owner: string; slug: string } {
  const ref = need(value, "<owner>/<slug>");
  const [owner, slug, ...rest] = ref.split("/");
  if (!owner || !slug || rest.length) throw new UsageError(`expected <owner>/<slug>, got "${ref}"`);
  return { owner, slug };
}

export function parseCommand(argv: string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      password: { type: "string" },
      description: { type: "string" },
      admin: { type: "boolean", default: false },
      reason: { type: "string" },
      url: { type: "string" },
      label: { type: "string" },
      bay: { type: "string" },
      interval: { type: "string" },
      timeout: { type: "string" },
      "reply-to": { type: "string" },
      file: { type: "string", multiple: true },
      dir: { type: "string" },
      multiple: { type: "boolean", default: false },
      remove: { type: "boolean", default: false },
      title: { type: "string" },
      body: { type: "string" },
      scope: { type: "string" },
      "base-version": { type: "string" },
      conversation: { type: "string" },
      room: { type: "string" },
      limit: { type: "string" },
      cursor: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const json = values.json ?? false;
  const [scope, verb, ...args] = positionals;
  // `maity hook --help` and `maity help hook`: the hook's own help (hook.ts hookHelp).
  if ((scope === "help" ? verb : values.help ? scope : undefined) === "hook")
    return { command: { kind: "help", topic: "hook" }, json };
  if (values.help || !scope || scope === "help") return { command: { kind: "help" }, json };
  const allowed = OPTIONS_OF[scope] ?? [];
  for (const [option, value] of Object.entries(values)) {
    if (option === "json" || option === "help" || value === undefined || allowed.includes(option)) continue;
    // parseArgs gives the booleans their default false: only a given one is refused.
    if ((option === "admin" || option === "multiple" || option === "remove") && value === false) continue;
    throw new UsageError(`--${option} is not an option of "${scope}"`);
  }
  if (scope !== "admin") return { json, command: parseAgentCommand(scope, positionals.slice(1), values) };
  switch (verb) {
    case "human":
      return {
        json,
        command: {
          kind: "human",
          handle: need(args[0], "<handle>"),
          name: need(values.name, "--name"),
          password: need(values.password, "--password"),
        },
      };
    case "agent":
      return {
        json,
        command: {
          kind: "agent",
          owner: need(args[0], "<owner>"),
          handle: need(args[1], "<handle>"),
          ...(values.name ? { name: values.name } : {}),
          ...(values.description !== undefined ? { description: values.description } : {}),
        },
      };
    case "project":
      return {
        json,
        command: {
          kind: "project",
          owner: need(args[0], "<owner>"),
          slug: need(args[1], "<slug>"),
          name: need(values.name, "--name"),
        },
      };
    case "member": {
      const [action, ref, memberId] = args;
      if (action === "add")
        return {
          json,
          command: {
            kind: "member-add",
            ...projectRef(ref),
            memberId: need(memberId, "<member_id>"),
            admin: values.admin ?? false,
          },
        };
      if (action === "remove") {
        const reason = values.reason ?? "removed";
        if (reason !== "removed" && reason !== "isolated")
          throw new UsageError(`--reason must be removed or isolated, got "${reason}"`);
        return {
          json,
          command: { kind: "member-remove", ...projectRef(ref), memberId: need(memberId, "<member_id>"), reason },
        };
      }
      throw new UsageError(action ? `unknown member action "${action}"` : "missing add or remove");
    }
    case "archive":
      return { json, command: { kind: "archive", ...projectRef(args[0]) } };
    case "token":
      return { json, command: { kind: "token", memberId: need(args[0], "<member_id>") } };
    case "revoke":
      return { json, command: { kind: "revoke", token: need(args[0], "<token>") } };
    default:
      throw new UsageError(verb ? `unknown admin command "${verb}"` : "missing admin command");
  }
}

type Values = {
  url?: string;
  label?: string;
  bay?: string;
  interval?: string;
  timeout?: string;
  "reply-to"?: string;
  file?: string[];
  dir?: string;
  multiple?: boolean;
  remove?: boolean;
  title?: string;
  body?: string;
  scope?: string;
  "base-version"?: string;
  conversation?: string;
  room?: string;
  limit?: string;
  cursor?: string;
};

function noMore(args: string[], count: number, scope: string): void {
  if (args.length > count) throw new UsageError(`unexpected argument "${args[count]}" for "${scope}"`);
}

function parseAgentCommand(scope: string, args: string[], values: Values): AgentCommand {
  const url = values.url !== undefined ? { url: values.url } : {};
  switch (scope) {
    case "pair":
      noMore(args, 1, scope);
      return { kind: "pair", code: need(args[0], "<code>"), ...url };
    case "link":
    case "login":
      noMore(args, 0, scope);
      return { kind: scope, ...(values.label !== undefined ? { label: values.label } : {}), ...url };
    case "logout":
      noMore(args, 0, scope);
      return { kind: "logout" };
    case "whoami":
    case "conversations":
    case "listen":
    case "hook":
      noMore(args, 0, scope);
      return { kind: scope };
    case "mcp":
    case "sessions":
      noMore(args, 0, scope);
      return { kind: scope, ...(values.bay !== undefined ? { bay: values.bay } : {}) };
    case "context":
    case "check":
      noMore(args, 1, scope);
      return { kind: scope, conversationId: need(args[0], "<conversation_id>") };
    case "watch":
      noMore(args, 1, scope);
      return {
        kind: "watch",
        conversationId: need(args[0], "<conversation_id>"),
        interval: seconds(values.interval, "--interval", 5, 0.05),
        timeout: seconds(values.timeout, "--timeout", 300, 0),
      };
    case "send": {
      noMore(args, 2, scope);
      const conversationId = need(args[0], "<conversation_id>");
      const content = need(args[1], "<text>");
      if (!content.trim()) throw new UsageError("the message is empty");
      const files = values.file ?? [];
      // B-213: more than one message's files is refused here, before anything is uploaded.
      if (files.length > ATTACHMENTS_PER_MESSAGE_MAX)
        throw new UsageError(`at most ${ATTACHMENTS_PER_MESSAGE_MAX} --file on one message, got ${files.length}`);
      return {
        kind: "send",
        conversationId,
        content,
        ...(values["reply-to"] ? { replyTo: values["reply-to"] } : {}),
        ...(files.length ? { files } : {}),
      };
    }
    case "files":
      noMore(args, 1, scope);
      return { kind: "files", conversationId: need(args[0], "<conversation_id>") };
    case "search": {
      // The words may come unquoted: `maity search pricing decision` searches both.
      const q = args.join(" ").trim();
      if (!q) throw new UsageError('missing <words>: maity search <words>… (e.g. maity search "release plan")');
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 50))
        throw new UsageError(`--limit is a number from 1 to 50, got "${values.limit}"`);
      return {
        kind: "search",
        q,
        ...(values.room ? { room: values.room } : {}),
        ...(limit ? { limit } : {}),
        ...(values.cursor ? { cursor: values.cursor } : {}),
      };
    }
    case "download":
      noMore(args, 1, scope);
      return { kind: "download", url: need(args[0], "<url>"), ...(values.dir ? { dir: values.dir } : {}) };
    case "poll": {
      const [conversationId, question, ...options] = args;
      return {
        kind: "poll",
        conversationId: need(conversationId, "<conversation_id>"),
        question: need(question, "<question>"),
        options,
        multiple: values.multiple ?? false,
      };
    }
    case "vote": {
      const [pollId, ...answers] = args;
      const numbers = answers.map((a) => {
        const n = Number(a);
        if (!/^\d+$/.test(a) || n < 1) throw new UsageError(`an answer is its number as shown, from 1; got "${a}"`);
        return n;
      });
      return { kind: "vote", pollId: need(pollId, "<poll_id>"), answers: numbers };
    }
    case "react":
      noMore(args, 3, scope);
      return {
        kind: "react",
        conversationId: need(args[0], "<conversation_id>"),
        messageId: need(args[1], "<message_id>"),
        emoji: need(args[2], "<emoji>"),
        remove: values.remove ?? false,
      };
    case "brief":
    case "notes":
    case "summary":
      noMore(args, 1, scope);
      return { kind: scope, conversationId: need(args[0], "<conversation_id>") };
    case "note":
      return parseNoteCommand(args, values);
    default:
      throw new UsageError(`unknown command "${scope}"`);
  }
}

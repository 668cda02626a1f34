import { parseArgs } from "node:util";

/** One operator command, parsed from argv (pure: tested without a hub). */
export type Command =
  | { kind: "help" }
  | { kind: "human"; handle: string; name: string; password: string }
  | { kind: "agent"; owner: string; handle: string; name?: string; description?: string }
  | { kind: "project"; owner: string; slug: string; name: string }
  | { kind: "member-add"; owner: string; slug: string; memberId: string; admin: boolean }
  | { kind: "member-remove"; owner: string; slug: string; memberId: string; reason: "removed" | "isolated" }
  | { kind: "archive"; owner: string; slug: string }
  | { kind: "token"; memberId: string }
  | { kind: "revoke"; token: string };

export type Parsed = { command: Command; json: boolean };

export class UsageError extends Error {}

export const USAGE = `usage: maity admin <command> [--json]

  admin human <handle> --name <name> --password <password>
  admin agent <owner> <handle> [--name <name>] [--description <text>]
  admin project <owner> <slug> --name <name>
  admin member add <owner>/<slug> <member_id> [--admin]
  admin member remove <owner>/<slug> <member_id> [--reason removed|isolated]
  admin archive <owner>/<slug>
  admin token <member_id>
  admin revoke <token>

environment: MAITY_URL (default http://127.0.0.1:3000), MAITY_ADMIN_TOKEN (required)`;

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
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const json = values.json ?? false;
  const [scope, verb, ...args] = positionals;
  if (values.help || !scope) return { command: { kind: "help" }, json };
  if (scope !== "admin") throw new UsageError(`unknown command "${scope}"`);
  switch (verb) {
    case "human":
      return { json, command: { kind: "human", handle: need(args[0], "<handle>"), name: need(values.name, "--name"), password: need(values.password, "--password") } };
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
      return { json, command: { kind: "project", owner: need(args[0], "<owner>"), slug: need(args[1], "<slug>"), name: need(values.name, "--name") } };
    case "member": {
      const [action, ref, memberId] = args;
      if (action === "add") return { json, command: { kind: "member-add", ...projectRef(ref), memberId: need(memberId, "<member_id>"), admin: values.admin ?? false } };
      if (action === "remove") {
        const reason = values.reason ?? "removed";
        if (reason !== "removed" && reason !== "isolated") throw new UsageError(`--reason must be removed or isolated, got "${reason}"`);
        return { json, command: { kind: "member-remove", ...projectRef(ref), memberId: need(memberId, "<member_id>"), reason } };
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

// `pnpm maity …`: the agent's commands (agent.ts, 004 §2–§7) and the operator's `maity admin …`
// over the hub's HTTP routes (the hub owns its database). Every failure is one line on stderr and
// exit 1; a usage error exit 2 with the usage (docs/cli.md).
import { fileURLToPath } from "node:url";
import { createRestClient, HubApiError } from "@maity/client";
import { CommandError, type Io, runAgent } from "./agent/run.ts";
import { type AdminCommand, type AgentCommand, isAdminCommand, parseCommand, USAGE, UsageError } from "./commands.ts";
import { ConfigError } from "./config.ts";
import { hookHelp } from "./hook.ts";

async function run(
  command: AdminCommand,
  client: ReturnType<typeof createRestClient>,
): Promise<{ line: string; raw: unknown }> {
  switch (command.kind) {
    case "human": {
      const r = await client.call("admin.createHuman", {
        handle: command.handle,
        name: command.name,
        password: command.password,
      });
      return { line: `created human ${r.id} (${r.name})`, raw: r };
    }
    case "agent": {
      const { kind: _k, ...input } = command;
      const r = await client.call("admin.createAgent", input);
      return { line: `created agent ${r.id} (${r.name})`, raw: r };
    }
    case "project": {
      const r = await client.call("admin.createProject", {
        owner: command.owner,
        slug: command.slug,
        name: command.name,
      });
      return { line: `created project ${r.full_name} (${r.name}); ${command.owner} is its admin`, raw: r };
    }
    case "member-add": {
      const r = await client.call("admin.addMember", {
        owner: command.owner,
        slug: command.slug,
        member_id: command.memberId,
        ...(command.admin ? { permissions: ["members:admin" as const] } : {}),
      });
      return {
        line: `${r.member_id} is an active member of ${command.owner}/${command.slug}${r.permissions.length ? ` (${r.permissions.join(", ")})` : ""}`,
        raw: r,
      };
    }
    case "member-remove": {
      const r = await client.call("admin.removeMember", {
        owner: command.owner,
        slug: command.slug,
        member_id: command.memberId,
        reason: command.reason,
      });
      return { line: `${command.memberId} ${command.reason} from ${command.owner}/${command.slug}`, raw: r };
    }
    case "archive": {
      const r = await client.call("admin.archiveProject", { owner: command.owner, slug: command.slug });
      return { line: `archived ${r.full_name}`, raw: r };
    }
    case "token": {
      const r = await client.call("admin.mintToken", { member_id: command.memberId });
      return { line: `token for ${r.member_id} (shown once, keep it safe):\n${r.token}`, raw: r };
    }
    case "revoke": {
      const r = await client.call("admin.revokeToken", { token: command.token });
      return {
        line: r.revoked ? "token revoked" : "no active token matched (already revoked or never minted)",
        raw: r,
      };
    }
  }
}

/** stdin as text, for `maity hook` (Claude Code's JSON); nothing from a terminal, and at most 2 s of waiting. */
function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      process.stdin.pause();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const timer = setTimeout(done, 2000);
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on("end", done);
    process.stdin.on("error", done);
  });
}

async function runAgentCommand(command: AgentCommand, json: boolean): Promise<number> {
  const stop = new AbortController();
  // Ctrl-C ends listen and watch cleanly; a second one is Node's default (exit at once).
  if (command.kind === "listen" || command.kind === "watch" || command.kind === "link" || command.kind === "login") {
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
  }
  const io: Io = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    readStdin,
    signal: stop.signal,
  };
  try {
    return await runAgent(command, json, io);
  } catch (error) {
    if (error instanceof CommandError || error instanceof ConfigError) console.error(`error: ${error.message}`);
    else console.error(`error: ${(error as Error)?.message ?? String(error)}`);
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.command.kind === "help") {
    console.log(
      parsed.command.topic === "hook" ? hookHelp(fileURLToPath(new URL("../bin/maity.mjs", import.meta.url))) : USAGE,
    );
    return 0;
  }
  if (!isAdminCommand(parsed.command)) return runAgentCommand(parsed.command, parsed.json);
  const token = process.env.MAITY_ADMIN_TOKEN;
  if (!token) {
    console.error(
      "error: MAITY_ADMIN_TOKEN is not set (the hub's operator token; the admin routes are off without it)",
    );
    return 2;
  }
  const baseUrl = process.env.MAITY_URL || "http://127.0.0.1:3000";
  try {
    const result = await run(parsed.command, createRestClient({ baseUrl, token }));
    console.log(parsed.json ? JSON.stringify(result.raw, null, 2) : result.line);
    return 0;
  } catch (error) {
    if (error instanceof HubApiError) {
      console.error(`error: ${error.message} (${error.status} ${error.code})`);
      for (const [field, reason] of Object.entries(error.details.fields ?? {})) console.error(`  ${field}: ${reason}`);
      return 1;
    }
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    console.error(`error: cannot reach the hub at ${baseUrl}: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

// The agent's commands (004 §2–§7): pair, link, whoami, conversations, context, check, watch,
// send, listen, hook, mcp. Each writes its answer to stdout (JSON with --json) and every note or
// refusal to stderr, so a script or an MCP client reads only what it asked for.
// One module a command group: agent/session.ts (the client, who the agent is, the protocol
// version), agent/rooms.ts (check, watch, listen), agent/send.ts (files to send), agent/hook.ts,
// agent/mcp.ts, agent/preauth.ts (pair, link); this file dispatches.
import { downloadAttachment } from "@maity/client/download";
import type { AgentCommand } from "../commands.ts";
import { preauthBaseUrl } from "../config.ts";
import { clock, renderFile, renderLine, renderRoom, renderTally, sanitize, sizeText } from "../render.ts";
import { hook } from "./hook.ts";
import { CommandError, type Io, json } from "./io.ts";
import { mcp } from "./mcp.ts";
import { noteCommand } from "./notes.ts";
import { summaryCommand } from "./summary.ts";
import { linkCommand, pairCommand } from "./preauth.ts";
import { loginCommand, logoutCommand } from "./login.ts";
import { deviceMcp, hasAgentCredential, sessionsCommand } from "./device.ts";
import { checkOnce, listen, watch } from "./rooms.ts";
import { uploadAll } from "./send.ts";
import { searchCommand } from "./search.ts";
import { noteVersion, openSession, type Session } from "./session.ts";

export { CommandError, type Io } from "./io.ts";
export { versionNote } from "./session.ts";

// ---- the commands ------------------------------------------------------------------------------------

/** Runs one agent command; answers the exit code. Errors are thrown as CommandError. */
export async function runAgent(command: AgentCommand, asJson: boolean, io: Io): Promise<number> {
  switch (command.kind) {
    case "pair":
      return pairCommand(command.code, preauthBaseUrl(io.env, command.url), asJson, io);
    case "link":
      return linkCommand(command.label, preauthBaseUrl(io.env, command.url), asJson, io);
    case "login":
      return loginCommand(command.label, preauthBaseUrl(io.env, command.url), asJson, io);
    case "logout":
      return logoutCommand(asJson, io);
    case "sessions":
      return sessionsCommand(command.bay, asJson, io);
    case "mcp":
      // DESIGN §4e: signed in as a person (maity login) and no agent here, or a Bay named: the session surface.
      if (command.bay !== undefined || !hasAgentCredential(io)) return deviceMcp(command.bay, io);
      break;
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
    case "search":
      return searchCommand(client, command, asJson, io);
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
    case "summary":
      return summaryCommand(command.conversationId, session, asJson, io);
    case "brief":
    case "notes":
    case "note-show":
    case "note-create":
    case "note-edit":
      return noteCommand(command, session, asJson, io);
    case "pair":
    case "link":
    case "login":
    case "logout":
    case "sessions":
      throw new Error("unreachable");
  }
}

import type { AgentClient } from "@maity/client";
import { AgentApiError } from "@maity/client";
import { agentOperations, PROTOCOL_VERSION } from "@maity/domain";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { PROTOCOL_MIME_TYPE, PROTOCOL_URI, protocolDocument } from "./protocol.ts";
import { agentsText, contextText, conversationsText, messagesText, sentText } from "./render.ts";
import { MCP_INSTRUCTIONS, type MaityToolName, TOOL_DESCRIPTIONS } from "./text.ts";

// 004 §2 "MCP-aware clients get native tools": one MCP server over an agent's AgentClient. The
// local stdio server (`maity mcp`, stdio.ts) and the remote endpoint (POST /api/mcp, @maity/api's
// mcp.ts) are this same server over two transports. Tool input schemas ARE the agent API's
// operation schemas (issue 14): a field added to an operation's input appears in its tool with no
// edit here (test/schema.test.ts). Attachments, notes, summaries and polls come with their issues.

/** The field names a tool takes: exactly its operation's input fields (B-348's tools over §5–§7). */
type Shape<S> = S extends z.ZodObject<infer T> ? T : never;

/**
 * The operation's input schema with descriptions on some fields, for the model. Only existing
 * fields can be described, so no field is added, removed or renamed here.
 */
function described<S extends z.ZodObject>(schema: S, notes: Partial<Record<keyof Shape<S> & string, string>>): S {
  const shape = schema.shape as Record<string, z.ZodType>;
  const extra: Record<string, z.ZodType> = {};
  for (const [field, note] of Object.entries(notes) as [string, string][]) {
    const field_ = shape[field];
    if (!field_) throw new Error(`no field ${field} in the operation's input`);
    extra[field] = field_.describe(note);
  }
  return schema.extend(extra) as unknown as S;
}

const ROOM = "The room's id (list_conversations gives them).";

/** What a refusal means for the model, in words, by status: the hub's own code and message come first. */
function hint(error: AgentApiError): string {
  if (error.status === 401)
    return "The Maity token is revoked or wrong: run maity pair (or maity link) to get a new one.";
  if (error.code === "ROUND_CAP_REACHED")
    return "Nothing was sent. The room's agent rounds are spent: wait for a person to speak before writing again.";
  if (error.status === 404 || error.code === "NOT_PARTICIPANT")
    return "You are not in that room, or it does not exist: list_conversations lists yours.";
  if (error.status === 429)
    return `Too many calls: wait${error.retryAfter === null ? "" : ` ${error.retryAfter} s`} and try again.`;
  if (error.status === 400) {
    const fields = Object.entries(error.fields).map(([k, v]) => `${k}: ${v}`);
    if (!fields.length) return "Fix the arguments, then call again.";
    return `Fix these fields, then call again: ${fields.join("; ")}.`;
  }
  if (error.status >= 500) return "The hub failed; try again shortly.";
  return "";
}

/** A refused call as a tool result (isError), so the model reads it and can act, instead of a protocol error. */
export function errorResult(error: unknown): CallToolResult {
  if (error instanceof AgentApiError) {
    const text = `Maity refused the call: ${error.code} (HTTP ${error.status}): ${error.message}. ${hint(error)}`;
    const structuredContent = { error: error.message, code: error.code, status: error.status };
    return { isError: true, content: [{ type: "text", text: text.trim() }], structuredContent };
  }
  const message = error instanceof Error ? error.message : String(error);
  // No answer at all (the hub is down or unreachable): say where the problem is.
  const text = `Could not reach the Maity hub: ${message}. Try again shortly.`;
  return { isError: true, content: [{ type: "text", text }] };
}

const ok = (text: string, structured: object): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: structured as Record<string, unknown>,
});

/** Runs a tool's hub call and renders its answer, or its refusal as an isError result. */
const run =
  <A, R>(call: (args: A) => Promise<R>, render: (result: R, args: A) => CallToolResult) =>
  async (args: A): Promise<CallToolResult> => {
    try {
      return render(await call(args), args);
    } catch (error) {
      return errorResult(error);
    }
  };

const READ = { readOnlyHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

/** The tools' input schemas: the operation table's, with field notes (test/schema.test.ts). */
export const toolInputSchemas = {
  list_conversations: agentOperations.conversations.input,
  get_room_context: described(agentOperations.context.input, { conversationId: ROOM }),
  get_messages: described(agentOperations.messages.input, {
    conversationId: ROOM,
    since: "ISO 8601 time: only messages newer than it, oldest first (forward polling).",
    cursor: "nextCursor of an earlier page: the next older page, newest first.",
    limit: "How many messages, 1–200 (default 50).",
  }),
  send_message: described(agentOperations.send.input, {
    conversationId: ROOM,
    content: "The message text. @Name (exact roster name) triggers that agent.",
    replyToMessageId: "The id of the message you answer (shown as 'id …' under it).",
    clientMessageId: "Your id for this send: a retry with the same id answers the first message, never posts twice.",
  }),
  set_typing: described(agentOperations.typing.input, { conversationId: ROOM }),
  list_agents: agentOperations.agents.input,
  contact_agent: described(agentOperations.contact.input, {
    agentId: "The agent to address (list_agents or the room's participants give ids).",
    conversationId: "A room you and that agent are both in.",
    replyToMessageId: "The id of the agent's message you answer, if any.",
  }),
} satisfies Record<MaityToolName, z.ZodObject>;

/** The MCP server of one agent: the tools of B-348 that this hub has, and `maity://protocol` (B-003). */
export function createMcpServer(client: AgentClient): McpServer {
  const server = new McpServer(
    // B-030: the server version is the protocol version, so a client learns it without asking.
    { name: "maity", title: "Maity", version: PROTOCOL_VERSION },
    { instructions: MCP_INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  type Args<N extends MaityToolName> = z.output<(typeof toolInputSchemas)[N]>;
  const tool = <N extends MaityToolName>(
    name: N,
    annotations: typeof READ | typeof WRITE,
    handler: (args: Args<N>) => Promise<CallToolResult>,
  ) =>
    server.registerTool(
      name,
      { description: TOOL_DESCRIPTIONS[name], inputSchema: toolInputSchemas[name], annotations },
      // The SDK parsed the arguments with the operation's schema: they are its output type.
      ((args: Args<N>) => handler(args)) as never,
    );

  tool(
    "list_conversations",
    READ,
    run(
      () => client.conversations(),
      (conversations) => ok(conversationsText(conversations), { conversations }),
    ),
  );
  tool(
    "get_room_context",
    READ,
    run(
      (a) => client.context(a.conversationId),
      (context) => ok(contextText(context), context),
    ),
  );
  tool(
    "get_messages",
    READ,
    run(
      ({ conversationId, ...query }) => client.messages(conversationId, query),
      (page) => ok(messagesText(page), page),
    ),
  );
  tool(
    "send_message",
    WRITE,
    run(
      // The SDK's send retries with one idempotency key (issue 12); a caller's own key is kept.
      ({ conversationId, idempotencyKey, ...input }) =>
        client.send(conversationId, input, idempotencyKey === undefined ? {} : { idempotencyKey }),
      (message) => ok(sentText(message), message),
    ),
  );
  tool(
    "set_typing",
    WRITE,
    run(
      (a) => client.typing(a.conversationId),
      (answer, a) => ok(`Typing shown in room ${a.conversationId}.`, answer),
    ),
  );
  tool(
    "list_agents",
    READ,
    run(
      () => client.agents(),
      (agents) => ok(agentsText(agents), { agents }),
    ),
  );
  tool(
    "contact_agent",
    WRITE,
    run(
      (a) => client.contactAgent(a),
      (message, a) => ok(sentText(message, a.agentId), message),
    ),
  );

  server.registerResource(
    "protocol",
    PROTOCOL_URI,
    {
      title: "The Maity agent protocol",
      description: "The agent protocol document: reading rooms, when to speak, the rules every agent follows.",
      mimeType: PROTOCOL_MIME_TYPE,
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: PROTOCOL_MIME_TYPE, text: protocolDocument() }] }),
  );
  return server;
}

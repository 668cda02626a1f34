// @maity/mcp: the agent protocol as an MCP server (004 §2, B-003, B-030, B-050, B-348).
export { PROTOCOL_MIME_TYPE, PROTOCOL_URI, protocolDocument } from "./protocol.ts";
export { agentsText, contextText, conversationsText, messageLine, messagesText } from "./render.ts";
export { createMcpServer, errorResult, toolInputSchemas } from "./server.ts";
export { serveStdio } from "./stdio.ts";
export { MCP_INSTRUCTIONS, type MaityToolName, TOOL_DESCRIPTIONS } from "./text.ts";

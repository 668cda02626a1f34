// @maity/mcp: the agent protocol as an MCP server (004 §2, B-003, B-030, B-050, B-348).
export { PROTOCOL_MIME_TYPE, PROTOCOL_URI, protocolDocument } from "./protocol.ts";
export {
  checkUploadExtension,
  defaultDownloadDir,
  dispositionName,
  downloadAttachment,
  LocalFileRefusal,
  safeFileName,
} from "@maity/client/download";
export {
  agentsText,
  attachmentLines,
  cardLines,
  contextText,
  projectText,
  conversationsText,
  filesText,
  messageLine,
  messagesText,
  pollTallyText,
  sizeText,
} from "./render.ts";
export { errorResult } from "./results.ts";
export {
  createMcpServer,
  createSessionMcpServer,
  type LocalOptions,
  localToolInputSchemas,
  toolInputSchemas,
} from "./server.ts";
export { serveSessionStdio, serveStdio } from "./stdio.ts";
export { LOCAL_TOOL_DESCRIPTIONS, MCP_INSTRUCTIONS, type MaityToolName, TOOL_DESCRIPTIONS } from "./text.ts";

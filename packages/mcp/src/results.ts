import { AgentApiError } from "@maity/client";
import { LocalFileRefusal } from "@maity/client/download";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

// What every tool answers: its result in words and structured, or its refusal as an isError result
// the model reads and acts on (004 §2), and the annotations that say whether a tool writes.

/** Attachment, card and poll refusals, in words (004 §10, v1.11, v1.12): what happened and what to do. */
const MEDIA_HINTS: Record<string, string> = {
  ATTACHMENT_LINK_FAILED:
    "Nothing was sent. Each attachmentId must be your own upload that no message carries yet: upload the files " +
    "again and send the new ids.",
  ATTACHMENTS_CONFLICT: "Send attachmentIds only.",
  CARD_WITH_ATTACHMENTS: "A message carries a card or files, not both: send them as two messages.",
  CARD_TYPE_NOT_SENDABLE: "Only card.calendar and card.email can be sent; polls come from create_poll.",
  INVALID_CARD_PAYLOAD: "Fix the card's payload field named above, then send again.",
  FILE_TOO_LARGE: "The file is over the Bay's upload limit (25 MB at most): send a smaller file or a link.",
  UNSUPPORTED_FILE_TYPE: "That type of file is not accepted: images, PDF, Office documents, text, CSV and zip are.",
  INVALID_UPLOAD: "The upload was not one readable file: check the file and try again.",
  POLL_NOT_FOUND: "No such poll in a room you are in: read the poll's message again for its id.",
  POLL_CLOSED: "The poll's room is closed: votes no longer change.",
  POLL_SINGLE_CHOICE: "This poll takes one answer: send one index.",
  INVALID_OPTION_INDEX: "Answers count from 0 (answer 1 is index 0): use an index the poll has.",
  INVALID_POLL: "A poll needs a question and 2–10 different answers.",
};

/** What a refusal means for the model, in words, by status: the hub's own code and message come first. */
function hint(error: AgentApiError): string {
  if (error.status === 401)
    return "The Maity token is revoked or wrong: run maity pair (or maity link) to get a new one.";
  if (error.code === "ROUND_CAP_REACHED")
    return "Nothing was sent. The room's agent rounds are spent: wait for a person to speak before writing again.";
  const media = MEDIA_HINTS[error.code];
  if (media) return media;
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
  // The local side refused before anything was sent or fetched (B-213, B-214, B-215).
  if (error instanceof LocalFileRefusal) return { isError: true, content: [{ type: "text", text: error.message }] };
  const message = error instanceof Error ? error.message : String(error);
  // No answer at all (the hub is down or unreachable): say where the problem is.
  const text = `Could not reach the Maity hub: ${message}. Try again shortly.`;
  return { isError: true, content: [{ type: "text", text }] };
}

export const ok = (text: string, structured: object): CallToolResult => ({
  content: [{ type: "text", text }],
  structuredContent: structured as Record<string, unknown>,
});

/** Runs a tool's hub call (with the client it acts through) and renders its answer, or its refusal as isError. */
export const run =
  <A, R, C = unknown>(call: (args: A, client: C) => Promise<R>, render: (result: R, args: A) => CallToolResult) =>
  async (args: A, client: C): Promise<CallToolResult> => {
    try {
      return render(await call(args, client), args);
    } catch (error) {
      return errorResult(error);
    }
  };

export const READ = { readOnlyHint: true, openWorldHint: false } as const;
export const WRITE = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

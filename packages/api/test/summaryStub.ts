import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A local OpenAI-compatible chat-completions server for the summary's tests (no model API is
// reachable here): it answers POST /v1/chat/completions with a summary record citing the ids it was
// handed — plus ids that are no message of the chat, which the hub must drop — or fails, or hangs,
// as the test sets it. It listens on 127.0.0.1 only and every hung request ends at close().

export type StubMode = "ok" | "slow" | "down" | "hang" | "garbage";

export interface SummaryStub {
  url: string;
  mode: StubMode;
  /** The requests it was sent: the model asked for, the bearer key, and the messages' ids. */
  requests: { model: string; authorization: string | undefined; responseFormat: unknown; ids: string[] }[];
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

export async function summaryStub(mode: StubMode = "ok"): Promise<SummaryStub> {
  const hanging = new Set<() => void>();
  const stub: SummaryStub = { url: "", mode, requests: [], close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const request = JSON.parse(await body(req)) as {
      model: string;
      response_format?: unknown;
      messages: { role: string; content: string }[];
    };
    const handed = JSON.parse(request.messages.at(-1)?.content ?? "{}") as {
      messages?: { id: string; from: string; text: string }[];
    };
    const ids = (handed.messages ?? []).map((m) => m.id);
    stub.requests.push({
      model: request.model,
      authorization: req.headers.authorization,
      responseFormat: request.response_format,
      ids,
    });
    if (stub.mode === "hang") {
      hanging.add(() => res.destroy());
      return;
    }
    // slow: an answer after 300 ms, so a second regeneration can start while the first one waits.
    if (stub.mode === "slow") await new Promise((r) => setTimeout(r, 300));
    if (stub.mode === "down") {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "the model is down" } }));
      return;
    }
    const content =
      stub.mode === "garbage"
        ? "I am not JSON"
        : JSON.stringify({
            narrative: `Stub summary of ${ids.length} messages.`,
            decisions: [{ text: "Ship on Friday", source_message_ids: [ids[0], "evt-99999999"] }],
            open_tasks: [
              { text: "Write the release notes", owner: "Rosa", status: "open", source_message_ids: [ids.at(-1)] },
            ],
            open_questions: [{ text: "Who reviews?", source_message_ids: ["evt-99999998"] }],
            facts: [{ text: "The build takes 12 minutes", source_message_ids: [ids[1] ?? ids[0]] }],
          });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-stub",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  stub.close = async () => {
    for (const end of hanging) end();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return stub;
}

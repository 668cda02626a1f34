// An agent that answers every message addressed to it (docs/sdk.md). Run it against a hub:
//   MAITY_API_URL=http://127.0.0.1:3000 MAITY_TOKEN=bay_… pnpm exec tsx packages/client/examples/agent-echo.ts
import { AgentApiError, connect } from "@maity/client";

const token = process.env.MAITY_TOKEN;
if (!token) throw new Error("MAITY_TOKEN is not set (an agent's bay_ token)");
const agent = connect({ baseUrl: process.env.MAITY_API_URL ?? "http://127.0.0.1:3000", token });

const me = await agent.me();
console.log(`connected as ${me.name} (protocol ${me.protocolVersion}); Ctrl-C to stop`);
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());

try {
  for await (const event of agent.events({ signal: stop.signal })) {
    const message = event.message;
    // §4: speak only when the hub says this message is for you (never to your own messages).
    if (!message.shouldRespond || message.senderId === me.id) continue;
    await agent.send(event.conversationId, { content: `echo: ${message.content}`, replyToMessageId: message.id });
  }
} catch (error) {
  // 401: the token was revoked or rotated; events() does not retry that.
  if (error instanceof AgentApiError) console.error(`stopped: ${error.status} ${error.code} ${error.message}`);
  else throw error;
}

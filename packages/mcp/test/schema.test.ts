import { agentOperations } from "@maity/domain";
import { describe, expect, it, vi } from "vitest";
import { fakeClient, inMemory } from "./fake.ts";

// Issue 14: the tools' input schemas are the agent API's operation schemas. Adding a field to an
// operation's input (here: a probe field on send, added by mocking @maity/domain's table) shows
// up in the tool with no edit in @maity/mcp.
vi.mock("@maity/domain", async (original) => {
  const domain = await original<typeof import("@maity/domain")>();
  const { z } = await import("zod");
  const send = domain.agentOperations.send;
  return {
    ...domain,
    agentOperations: {
      ...domain.agentOperations,
      send: { ...send, input: send.input.extend({ probeAddedField: z.string().optional() }) },
    },
  };
});

describe("tool input schemas come from the operation table (issue 14, B-348)", () => {
  it("a field added to agentOperations.send.input appears in send_message's inputSchema", async () => {
    const { mcp, close } = await inMemory(fakeClient({}));
    const { tools } = await mcp.listTools();
    const send = tools.find((t) => t.name === "send_message");
    const keys = Object.keys(agentOperations.send.input.shape);
    expect(keys).toContain("probeAddedField");
    expect(Object.keys(send?.inputSchema.properties ?? {}).sort()).toEqual(keys.sort());
    expect(send?.inputSchema.required).toEqual(expect.arrayContaining(["conversationId", "content"]));
    await close();
  });

  it("every tool's inputSchema has exactly its operation's fields", async () => {
    const { mcp, close } = await inMemory(fakeClient({}));
    const { tools } = await mcp.listTools();
    const of = {
      list_conversations: agentOperations.conversations,
      get_room_context: agentOperations.context,
      get_messages: agentOperations.messages,
      send_message: agentOperations.send,
      set_typing: agentOperations.typing,
      list_agents: agentOperations.agents,
      contact_agent: agentOperations.contact,
    } as const;
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(of).sort());
    for (const tool of tools) {
      const op = of[tool.name as keyof typeof of];
      const listed = Object.keys(tool.inputSchema.properties ?? {}).sort();
      expect(listed, tool.name).toEqual(Object.keys(op.input.shape).sort());
    }
    await close();
  });
});

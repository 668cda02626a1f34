import { agentOperations } from "@maity/domain";
import { describe, expect, it, vi } from "vitest";
import { fakeClient, inMemory } from "./fake.ts";

// B-348: the tools' input schemas are the agent API's operation schemas. Adding a field to an
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

/**
 * send_message's fields: the send's, its raw file fields (attachments, attachmentId) replaced by
 * attachmentIds (B-211); `card` stays, its schema narrowed to the two sendable types (B-224).
 */
const sendToolFields = (fields: string[]) => [
  ...fields.filter((k) => k !== "attachments" && k !== "attachmentId"),
  "attachmentIds",
];

describe("tool input schemas come from the operation table (B-348)", () => {
  it("a field added to agentOperations.send.input appears in send_message's inputSchema", async () => {
    const { mcp, close } = await inMemory(fakeClient({}));
    const { tools } = await mcp.listTools();
    const send = tools.find((t) => t.name === "send_message");
    const keys = sendToolFields(Object.keys(agentOperations.send.input.shape));
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
      get_project: agentOperations.project,
      get_messages: agentOperations.messages,
      send_message: agentOperations.send,
      set_typing: agentOperations.typing,
      list_agents: agentOperations.agents,
      contact_agent: agentOperations.contact,
      list_files: agentOperations.files,
      search_messages: agentOperations.search,
      get_file: agentOperations.fileLink,
      create_poll: agentOperations.pollCreate,
      vote_in_poll: agentOperations.pollVote,
      join_session_group: agentOperations.joinSessionGroup,
      react_to_message: agentOperations.react,
      remove_reaction: agentOperations.unreact,
      list_notes: agentOperations.notes,
      get_conversation_summary: agentOperations.summary,
      get_note: agentOperations.noteGet,
      create_note: agentOperations.noteCreate,
      update_note: agentOperations.notePatch,
    } as const;
    // What the tools leave out on purpose: MCP always asks for the brief and notes; agents never pin.
    const omitted: Partial<Record<keyof typeof of, string[]>> = {
      get_room_context: ["features"],
      get_messages: ["features"],
      update_note: ["pinned"],
    };
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(of).sort());
    for (const tool of tools) {
      const op = of[tool.name as keyof typeof of];
      const listed = Object.keys(tool.inputSchema.properties ?? {}).sort();
      const fields = Object.keys(op.input.shape).filter((f) => !omitted[tool.name as keyof typeof of]?.includes(f));
      expect(listed, tool.name).toEqual((tool.name === "send_message" ? sendToolFields(fields) : fields).sort());
    }
    await close();
  });

  it("B-212 the remote set has no upload_file, no download_attachment, no files; the local one adds them", async () => {
    const remote = await inMemory(fakeClient({}));
    const remoteTools = (await remote.mcp.listTools()).tools;
    expect(remoteTools.map((t) => t.name)).not.toContain("upload_file");
    expect(remoteTools.map((t) => t.name)).not.toContain("download_attachment");
    expect(Object.keys(remoteTools.find((t) => t.name === "send_message")?.inputSchema.properties ?? {})).not.toContain(
      "files",
    );
    await remote.close();
    const local = await inMemory(fakeClient({}), {});
    const localTools = (await local.mcp.listTools()).tools;
    expect(localTools.map((t) => t.name)).toEqual(expect.arrayContaining(["upload_file", "download_attachment"]));
    const send = localTools.find((t) => t.name === "send_message");
    expect(Object.keys(send?.inputSchema.properties ?? {}).sort()).toEqual(
      [...sendToolFields(Object.keys(agentOperations.send.input.shape)), "files"].sort(),
    );
    await local.close();
  });
});

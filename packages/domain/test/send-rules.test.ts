import { describe, expect, it } from "vitest";
import { agentOperations, RESERVED_MESSAGE_TYPES, refusalOf, SERVER_METADATA_KEYS } from "../src/index.ts";

// The agent send's input rules live in its operation's schema, parsed once at the edge (REST, tRPC,
// MCP and the SDK alike); a refusal reads as the protocol says, with the agent code the rule names.
const send = agentOperations.send.input;
const refused = (input: Record<string, unknown>) => {
  const result = send.safeParse({ conversationId: "c1", content: "hi", ...input });
  if (result.success) throw new Error("accepted");
  const error = refusalOf(result.error, input);
  return { fields: error.details.fields, message: error.message, agentCode: error.agentCode ?? null };
};

describe("the agent send's rules in its schema (B-063 B-118 OQ-B-14)", () => {
  it.each(RESERVED_MESSAGE_TYPES)(
    "B-118 metadata.type %s is the hub's: RESERVED_MESSAGE_TYPE naming the field",
    (type) => {
      expect(refused({ metadata: { type } })).toEqual({
        fields: { "metadata.type": "reserved" },
        message: `metadata.type ${type} is written by the hub only`,
        agentCode: "RESERVED_MESSAGE_TYPE",
      });
    },
  );

  it.each(SERVER_METADATA_KEYS)("B-063 B-181 metadata.%s is set by the hub: refused naming the field", (key) => {
    expect(refused({ metadata: { [key]: [] } })).toEqual({
      fields: { [`metadata.${key}`]: "server_set" },
      message: `metadata.${key} is set by the hub`,
      agentCode: null,
    });
  });

  it("the Idempotency-Key header and clientMessageId name one send, or the request is refused", () => {
    expect(refused({ idempotencyKey: "a", clientMessageId: "b" })).toEqual({
      fields: { clientMessageId: "differs_from_idempotency_key" },
      message: "clientMessageId and the Idempotency-Key header name different sends",
      agentCode: null,
    });
    expect(
      send.safeParse({ conversationId: "c1", content: "hi", idempotencyKey: "a", clientMessageId: "a" }).success,
    ).toBe(true);
  });

  it("a type of the agent's own passes (OQ-B-13)", () => {
    expect(send.safeParse({ conversationId: "c1", content: "hi", metadata: { type: "status.report" } }).success).toBe(
      true,
    );
  });
});

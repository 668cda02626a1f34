import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  addMemberInput,
  agentPollQuery,
  agentSendInput,
  createAgentInput,
  createGroupInput,
  createHumanInput,
  createProjectInput,
  isHubError,
  isSafeText,
  linkCodeSchema,
  linkPollInput,
  linkRequestInput,
  listConversationsQuery,
  loginInput,
  mintTokenInput,
  pairInput,
  parseInput,
  postEventInput,
  postMessageInput,
  redactInput,
  revokeTokenInput,
  TEXT_REFUSED,
  text,
  JSON_DEPTH_MAX,
  JSON_TOO_DEEP,
  jsonRefusal,
  updateGroupInput,
  updatesQuery,
  webhookInput,
  wsHelloSchema,
} from "../src/index.ts";

// NUL and unpaired surrogates answered 500 (PostgreSQL refuses NUL; jsonb a lone
// surrogate) — the one rule refuses them, with the field named, in every input schema.

const NUL = "a\u0000b";
const HIGH = "a\ud800b";
const LOW = "a\udc00b";

function fieldsOf(schema: z.ZodType, input: unknown): Record<string, string> | null {
  try {
    parseInput(schema, input);
    return null;
  } catch (error) {
    if (!isHubError(error)) throw error;
    return error.details.fields ?? {};
  }
}

describe("text input: isSafeText: no U+0000, no unpaired surrogate", () => {
  it.each([
    ["plain", "hello", true],
    ["empty", "", true],
    ["accents and CJK", "Grüße, 你好", true],
    ["a paired surrogate (an emoji)", "ok 😀 ok", true],
    ["U+FFFD itself", "\ufffd", true],
    ["other control characters", "tab\tnew\nline\u0001", true],
    ["NUL", NUL, false],
    ["NUL alone", "\u0000", false],
    ["a lone high surrogate", HIGH, false],
    ["a lone high surrogate at the end", "a\ud83d", false],
    ["a lone low surrogate", LOW, false],
    ["a lone low surrogate at the start", "\ude00a", false],
    ["two high surrogates", "\ud83d\ud83d\ude00", false],
    ["a reversed pair", "\ude00\ud83d", false],
  ])("%s → %s", (_name, value, safe) => {
    expect(isSafeText(value)).toBe(safe);
  });

  it("text() names the field and the reason first, before a length check", () => {
    expect(fieldsOf(text().max(1), NUL)).toEqual({ body: TEXT_REFUSED });
    expect(TEXT_REFUSED).toBe("no NUL or unpaired surrogate");
  });
});

describe("text input: jsonRefusal: nested JSON values, keys and depth", () => {
  it.each([
    ["a flat object", { a: "x", b: 1, c: null, d: true }, null],
    ["a nested value", { a: { b: [1, "ok", NUL] } }, ["a", "b", 2]],
    ["a surrogate deep in an array", [[[HIGH]]], [0, 0, 0]],
    ["a key: the object holding it is named", { a: { [`k${LOW}`]: 1 } }, ["a"]],
    ["a NUL key at the top", { "\u0000": 1 }, []],
    ["the first in document order", { a: "ok", b: NUL, c: HIGH }, ["b"]],
  ])("%s", (_name, value, path) => {
    expect(jsonRefusal(value)).toEqual(path === null ? null : { path, reason: TEXT_REFUSED });
  });

  const nested = (levels: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 1; i < levels; i++) value = [value];
    return value;
  };
  it(`${JSON_DEPTH_MAX} levels pass, one more is refused as too deep, the whole value named`, () => {
    expect(jsonRefusal(nested(JSON_DEPTH_MAX, []))).toBeNull();
    expect(jsonRefusal(nested(JSON_DEPTH_MAX + 1, []))).toEqual({ path: [], reason: JSON_TOO_DEEP });
    expect(JSON_TOO_DEEP).toBe("at most 64 levels deep");
  });

  it("walks 100,000 levels without overflowing the stack (JSON.stringify overflowed at 5,000: a 500)", () => {
    expect(jsonRefusal(nested(100_000, NUL))).toEqual({ path: [], reason: JSON_TOO_DEEP });
    expect(jsonRefusal(nested(JSON_DEPTH_MAX, NUL))?.reason).toBe(TEXT_REFUSED);
  });
});

// Every input schema's stored or queried strings: [schema name, schema, a valid input, field → where].
const schemas: [string, z.ZodType, Record<string, unknown>, string[]][] = [
  ["createHumanInput", createHumanInput, { handle: "ann", name: "Ann", password: "long-enough" }, ["name", "password"]],
  [
    "createAgentInput",
    createAgentInput,
    { owner: "ann", handle: "bot", name: "Bot", description: "d" },
    ["owner", "name", "description"],
  ],
  ["createProjectInput", createProjectInput, { owner: "ann", slug: "p", name: "P" }, ["slug", "name"]],
  ["addMemberInput", addMemberInput, { member_id: "agt-a" }, ["member_id"]],
  ["mintTokenInput", mintTokenInput, { member_id: "agt-a", label: "ci" }, ["label"]],
  ["revokeTokenInput", revokeTokenInput, { token: "mty_x" }, ["token"]],
  ["loginInput", loginInput, { handle: "ann", password: "pw" }, ["handle", "password"]],
  ["postMessageInput", postMessageInput, { body: "hi", to_instance: "i1" }, ["body", "to_instance"]],
  ["postEventInput", postEventInput, { type: "chat", conversation_id: "c1", body: "hi" }, ["conversation_id", "body"]],
  ["listConversationsQuery", listConversationsQuery, { cursor: "x" }, ["cursor"]],
  ["createGroupInput", createGroupInput, { title: "T", participants: ["agt-a"] }, ["title"]],
  [
    "updateGroupInput",
    updateGroupInput,
    { title: "T", designated_agent_id: "agt-a", custom_rules: "be brief" },
    ["title", "designated_agent_id", "custom_rules"],
  ],
  ["redactInput", redactInput, { reason: "oops" }, ["reason"]],
  [
    "agentSendInput",
    agentSendInput,
    { content: "hi", replyToMessageId: "evt-1", clientMessageId: "c-1" },
    ["content", "replyToMessageId", "clientMessageId"],
  ],
  ["agentPollQuery", agentPollQuery, { cursor: "m1" }, ["cursor"]],
  ["updatesQuery", updatesQuery, { cursor: "u1" }, ["cursor"]],
  ["wsHelloSchema", wsHelloSchema, { t: "hello", resume: "u1", instance: "i1" }, ["resume", "instance"]],
  ["webhookInput", webhookInput, { url: "https://example.com/hook", secret: "s".repeat(16) }, ["url", "secret"]],
  ["pairInput", pairInput, { code: "ABC" }, ["code"]],
  ["linkRequestInput", linkRequestInput, { label: "laptop" }, ["label"]],
  ["linkPollInput", linkPollInput, { secret: "s" }, ["secret"]],
];

describe("text input: every input schema refuses NUL and lone surrogates by field", () => {
  it.each(schemas)("%s takes its valid input", (_name, schema, valid) => {
    expect(fieldsOf(schema, valid)).toBeNull();
  });

  const cases = schemas.flatMap(([name, schema, valid, fields]) =>
    fields.flatMap((field) =>
      [NUL, HIGH, LOW].map((bad) => [name, field, JSON.stringify(bad), schema, { ...valid, [field]: bad }] as const),
    ),
  );
  it.each(cases)("%s.%s = %s → the field named", (_name, field, _bad, schema, input) => {
    const fields = fieldsOf(schema, input);
    // Handles, member ids and "a\0b" as a URL already refuse by their pattern; the rest name the rule.
    expect(fields && Object.keys(fields)).toEqual([field]);
    if (!["owner", "slug", "member_id", "url"].includes(field)) expect(fields?.[field]).toBe(TEXT_REFUSED);
  });

  it("a webhook URL whose path holds a NUL is refused (URL parsing would have kept it)", () => {
    expect(fieldsOf(webhookInput, { url: `https://example.com/${NUL}` })).toEqual({ url: TEXT_REFUSED });
  });

  it("feature names are neither stored nor queried: an unknown one is ignored, as B-143 says", () => {
    expect(fieldsOf(updatesQuery, { features: NUL })).toBeNull();
    expect(fieldsOf(wsHelloSchema, { t: "hello", features: [HIGH] })).toBeNull();
  });

  it("the link code of a path", () => {
    expect(fieldsOf(linkCodeSchema, NUL)).toEqual({ body: TEXT_REFUSED });
  });

  it.each([
    ["a nested value", { a: { b: [NUL] } }, "metadata.a.b.0"],
    ["a lone surrogate value", { type: HIGH }, "metadata.type"],
    ["a key", { nested: { [`k${LOW}`]: 1 } }, "metadata.nested"],
    ["a NUL key at the top", { "\u0000": "x" }, "metadata"],
  ])("agentSendInput metadata: %s → %s", (_name, metadata, field) => {
    expect(fieldsOf(agentSendInput, { content: "hi", metadata })).toEqual({ [field]: TEXT_REFUSED });
  });
});

describe("text input: agentSendInput metadata nests at most JSON_DEPTH_MAX levels", () => {
  it("65 levels (the object itself the first) → fields.metadata too deep", () => {
    let deep: unknown = 1;
    for (let i = 0; i < JSON_DEPTH_MAX; i++) deep = [deep];
    expect(fieldsOf(agentSendInput, { content: "hi", metadata: { a: deep } })).toEqual({ metadata: JSON_TOO_DEEP });
    expect(fieldsOf(agentSendInput, { content: "hi", metadata: { a: (deep as unknown[])[0] } })).toBeNull();
  });
});

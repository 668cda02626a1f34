import { seedDemo } from "@maity/hub";
import { afterAll, describe, expect, it } from "vitest";
import { handleTrpc } from "../src/fetch.ts";
import { handleRest } from "../src/rest/index.ts";
import { BASE, testHub } from "./helpers.ts";

// Input bounded at the edge, errors in one shape: every integer of the wire within its PostgreSQL
// integer column (refused as `invalid` naming the field, never a 500); tRPC's own transport
// refusals in the hub's shape with the field named; and which credentials each operation accepts.

const hub = await testHub();
await seedDemo(hub);
afterAll(() => hub.close());
const human = (await hub.admin.mintToken({ member_id: "hum-maintainer" })).token;
const agentId = (await hub.db.agent.findFirstOrThrow({ where: { handle: "agent-a" }, select: { id: true } })).id;
const agent = (await hub.admin.mintToken({ member_id: agentId })).token;
const group = (await hub.db.conversation.findFirstOrThrow({ where: { kind: "group" }, select: { publicId: true } }))
  .publicId;
const ref = { owner: "maintainer", slug: "maity", conversation_id: group };
const C = `/api/projects/maintainer/maity/conversations/${group}`;

async function call(
  path: string,
  init: { method?: string; body?: string; token?: string; type?: string | null } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? human}` };
  if (init.type !== null) headers["content-type"] = init.type ?? "application/json";
  const req = new Request(`${BASE}${path}`, { method: init.method ?? "GET", headers, body: init.body });
  const res = path.startsWith("/api/trpc/") ? await handleTrpc(hub, req) : await handleRest(hub, req);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const trpc = (name: string, kind: "query" | "mutation", input: unknown, token = human) =>
  kind === "query"
    ? call(`/api/trpc/${name}?input=${encodeURIComponent(JSON.stringify(input))}`, { token })
    : call(`/api/trpc/${name}`, { method: "POST", body: JSON.stringify(input), token });
/** The hub's error of a tRPC answer. */
const hubError = (body: Record<string, unknown>) =>
  (body.error as { data: { hubError: { code: string; details: { fields?: Record<string, string> } } | null } }).data
    .hubError;
const restFields = (body: Record<string, unknown>) =>
  (body.error as { code: string; details: { fields?: Record<string, string> } }).details.fields ?? {};

const PAST = [2 ** 31, 2 ** 63];

describe("every integer within its column (a 500 before: 'value out of range for type integer')", () => {
  it("REST: after=, before=, reply_to and a message seq in the path past 2^31 and 2^63 → invalid naming the field", async () => {
    for (const n of PAST) {
      const t = BigInt(n).toString();
      for (const field of ["after", "before"]) {
        const res = await call(`${C}/messages?${field}=${t}`);
        expect(res.status, `${field}=${t}`).toBe(400);
        expect(Object.keys(restFields(res.body)), `${field}=${t}`).toEqual([field]);
      }
      const reply = await call(`${C}/messages`, { method: "POST", body: JSON.stringify({ body: "x", reply_to: n }) });
      expect(reply.status).toBe(400);
      expect(Object.keys(restFields(reply.body))).toEqual(["reply_to"]);
      for (const [method, path] of [
        ["PUT", `${C}/messages/${t}/reactions/%F0%9F%91%8D`],
        ["POST", `${C}/messages/${t}/redact`],
      ] as const) {
        const res = await call(path, { method, body: method === "POST" ? "{}" : undefined });
        expect(res.status, path).toBe(400);
        expect(Object.keys(restFields(res.body)), path).toEqual(["seq"]);
      }
      const events = await call(`/api/projects/maintainer/maity/events?after=${t}`);
      expect(Object.keys(restFields(events.body))).toEqual(["after"]);
    }
  });

  it("tRPC: reactions.add {seq}, markRead, routing {seqs}, messages.list, messages.post reply_to → invalid naming the field", async () => {
    for (const n of PAST) {
      const cases = [
        ["reactions.add", "mutation", { ...ref, seq: n, emoji: "👍" }, "seq"],
        ["messages.markRead", "mutation", { ...ref, seq: n }, "seq"],
        ["messages.routing", "query", { ...ref, seqs: [n] }, "seqs.0"],
        ["messages.list", "query", { ...ref, after: n }, "after"],
        ["messages.post", "mutation", { ...ref, body: "x", reply_to: n }, "reply_to"],
      ] as const;
      for (const [name, kind, input, field] of cases) {
        const res = await trpc(name, kind, input);
        expect(res.status, name).toBe(400);
        expect(hubError(res.body), name).toMatchObject({ code: "invalid" });
        expect(Object.keys(hubError(res.body)?.details.fields ?? {}), name).toEqual([field]);
      }
    }
  });

  it("agent API: a message id past the column names no message (NOT_FOUND, INVALID_REPLY_TARGET naming its field)", async () => {
    const rooms = (await call("/api/agent-api/conversations", { token: agent })).body.conversations as {
      id: string;
      type: string;
    }[];
    const room = rooms.find((r) => r.type === "GROUP")?.id ?? "";
    const react = await call(`/api/agent-api/conversations/${room}/messages/evt-2147483648/reactions`, {
      method: "POST",
      body: JSON.stringify({ emoji: "👍" }),
      token: agent,
    });
    expect(react).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    for (const target of ["evt-2147483648", "evt-9223372036854775808", " ", "-0", "0x10"]) {
      const sent = await call(`/api/agent-api/conversations/${room}/messages`, {
        method: "POST",
        body: JSON.stringify({ content: "x", replyToMessageId: target }),
        token: agent,
      });
      expect(sent, target).toEqual({
        status: 400,
        body: {
          error: "replyToMessageId names no message of this conversation",
          code: "INVALID_REPLY_TARGET",
          fields: { replyToMessageId: "not_in_conversation" },
        },
      });
    }
  });
});

describe("tRPC's transport refusals in the hub's shape, the field named", () => {
  it("a body or ?input= that is not JSON → invalid, fields.body / fields.input not_json, the hub's words", async () => {
    const post = await call("/api/trpc/messages.typing", { method: "POST", body: "not json" });
    expect(post.status).toBe(400);
    expect(hubError(post.body)).toMatchObject({ code: "invalid", details: { fields: { body: "not_json" } } });
    expect((post.body.error as { message: string }).message).toBe("the call's body is not valid JSON");
    const get = await call(`/api/trpc/messages.list?input=${encodeURIComponent("{nope")}`);
    expect(hubError(get.body)).toMatchObject({ code: "invalid", details: { fields: { input: "not_json" } } });
  });

  it("a content type that is not JSON → 415 unsupported_media_type naming content-type (REST's field)", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", null]) {
      const res = await call("/api/trpc/messages.typing", { method: "POST", body: JSON.stringify(ref), type });
      expect(res.status, String(type)).toBe(415);
      expect(hubError(res.body), String(type)).toMatchObject({
        code: "unsupported_media_type",
        details: { fields: { "content-type": "not_json" } },
      });
    }
  });

  it("unknown keys __proto__ and constructor are named like any other (REST and tRPC)", async () => {
    const body = `{"__proto__": {"x": 1}, "constructor": 1, ${JSON.stringify(ref).slice(1, -1)}}`;
    const viaTrpc = await call("/api/trpc/messages.typing", { method: "POST", body });
    // Built with fromEntries: a literal `__proto__:` would set the prototype, the very mistake tested here.
    const named = Object.fromEntries([
      ["__proto__", "unknown_field"],
      ["constructor", "unknown_field"],
    ]);
    expect(hubError(viaTrpc.body)?.details.fields).toEqual(named);
    const viaRest = await call(`${C}/messages`, {
      method: "POST",
      body: '{"body": "x", "__proto__": 1, "constructor": 2}',
    });
    expect(restFields(viaRest.body)).toEqual(named);
  });

  it("an unknown procedure → not_found; a query called as a mutation → method_not_allowed naming the method", async () => {
    expect(hubError((await call("/api/trpc/no.such")).body)).toMatchObject({ code: "not_found" });
    const wrong = await call("/api/trpc/messages.list", { method: "POST", body: "{}" });
    expect(wrong.status).toBe(405);
    expect(hubError(wrong.body)).toMatchObject({
      code: "method_not_allowed",
      details: { fields: { method: "use_get" } },
    });
  });
});

describe("one table of which credentials each operation accepts (access.ts)", () => {
  it("an agent token on the people's typing, markRead, polls.create and upload route → humans_only; a person's passes", async () => {
    const humansOnly = { code: "forbidden", details: { reason: "humans_only" } };
    for (const [name, input] of [
      ["messages.typing", ref],
      ["messages.markRead", { ...ref, seq: 1 }],
      ["polls.create", { ...ref, question: "Q?", options: ["a", "b"] }],
      ["links.get", { code: "x" }],
    ] as const) {
      const byAgent = await trpc(name, name === "links.get" ? "query" : "mutation", input, agent);
      expect(byAgent.status, name).toBe(403);
      expect(hubError(byAgent.body), name).toMatchObject(humansOnly);
    }
    const poll = await call(`${C}/polls`, {
      method: "POST",
      body: JSON.stringify({ question: "Q?", options: ["a", "b"] }),
      token: agent,
    });
    expect(poll).toMatchObject({ status: 403, body: { error: humansOnly } });
    const upload = await call("/api/projects/maintainer/maity/attachments", {
      method: "POST",
      body: "x",
      type: "multipart/form-data; boundary=x",
      token: agent,
    });
    expect(upload).toMatchObject({ status: 403, body: { error: humansOnly } });
    expect((await trpc("messages.typing", "mutation", ref)).status).toBe(200);
    // The agent's own operations stay its own: a person's token on the agent API answers like none.
    const typing = await call(`/api/agent-api/conversations/${group}/typing`, { method: "POST", body: "{}" });
    expect(typing).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
  });
});

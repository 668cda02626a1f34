import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restClient, testHub, trpcBrowser } from "./helpers.ts";

// Routing made visible: the dashboard asks, for the messages it shows, which agents the
// hub asked to answer and why — the verdicts stored by the write (004 §4), read by any reader of
// the chat (observers too), refused like a missing chat to anyone else.

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const _M = "/api/projects/maintainer/maity";
const ref = { owner: "maintainer", slug: "maity" };
let chat: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "agt-a", "agt-x"])
    tokens[id] = (await hub.admin.mintToken({ member_id: id })).token;
  chat = (await hub.db.conversation.findFirstOrThrow({ where: { kind: "group" }, select: { publicId: true } }))
    .publicId;
  await hub.admin.createHuman({ handle: "carol", name: "Carol", password: "carol-password" });
});

async function as(handle: string, password: string) {
  const browser = trpcBrowser(hub);
  expect((await browser.mutation("auth.login", { handle, password })).status).toBe(200);
  return browser;
}
const seqsOf = async () =>
  (
    await hub.db.event.findMany({
      where: { kind: "message", conversation: { publicId: chat } },
      select: { seq: true },
      orderBy: { seq: "asc" },
    })
  ).map((e) => e.seq);

describe("messages.routing: who was asked to answer, and why (004 §4)", () => {
  it("B-060 B-068 the stored verdicts: a mention asks one agent; an agent's reply past the round cap asks nobody, reason round_cap", async () => {
    // The demo's group chat: "@agent-a can we tag today?" under MENTIONS.
    const [first] = await seqsOf();
    const maintainer = await as("maintainer", "maintainer-demo");
    const asked = await maintainer.query("messages.routing", { ...ref, conversation_id: chat, seqs: [first] });
    expect(asked.body.result?.data).toEqual([
      {
        seq: first,
        agents: [
          { agent_id: "agt-a", should_respond: true, reason: "mentioned" },
          { agent_id: "agt-x", should_respond: false, reason: "not_addressed" },
        ],
      },
    ]);
    // Two agent messages in a row (the cap is 2): the second is held back for everyone.
    const keys = await rest("GET", "/api/agent-api/conversations", { token: tokens["agt-a"] });
    const room = keys.body.conversations.find((r: { maity: { id: string } }) => r.maity.id === chat).id as string;
    const say = (agent: string, content: string) =>
      rest("POST", `/api/agent-api/conversations/${room}/messages`, { token: tokens[agent], body: { content } });
    const one = await say("agt-a", "@agent-x over to you");
    const two = await say("agt-x", "@agent-a and back");
    const seq = (id: string) => Number(id.replace("evt-", ""));
    const verdicts = await maintainer.query("messages.routing", {
      ...ref,
      conversation_id: chat,
      seqs: [seq(one.body.id), seq(two.body.id)],
    });
    expect(verdicts.body.result?.data).toEqual([
      {
        seq: seq(one.body.id),
        agents: [
          { agent_id: "agt-a", should_respond: false, reason: "own_message" },
          { agent_id: "agt-x", should_respond: true, reason: "mentioned" },
        ],
      },
      {
        seq: seq(two.body.id),
        agents: [
          { agent_id: "agt-a", should_respond: false, reason: "round_cap" },
          { agent_id: "agt-x", should_respond: false, reason: "own_message" },
        ],
      },
    ]);
  });

  it("M-240 an observer reads them (guest reads along as agent-x's owner); an outsider gets the missing chat's answer; other chats' seqs are left out", async () => {
    const seqs = await seqsOf();
    const guest = await as("guest", "guest-demo");
    const seen = await guest.query("messages.routing", { ...ref, conversation_id: chat, seqs });
    expect(((seen.body.result?.data ?? []) as { seq: number }[]).map((r) => r.seq)).toEqual(seqs);
    const elsewhere = (
      await hub.db.event.findFirstOrThrow({
        where: { kind: "message", conversation: { kind: "direct" } },
        select: { seq: true },
      })
    ).seq;
    const mixed = await guest.query("messages.routing", { ...ref, conversation_id: chat, seqs: [elsewhere, seqs[0]] });
    expect(((mixed.body.result?.data ?? []) as { seq: number }[]).map((r) => r.seq)).toEqual([seqs[0]]);
    const carol = await as("carol", "carol-password");
    const refused = await carol.query("messages.routing", { ...ref, conversation_id: chat, seqs });
    const missing = await carol.query("messages.routing", { ...ref, conversation_id: "cnv-9999", seqs });
    expect(refused.status).toBe(404);
    expect(refused.body.error?.data.hubError).toEqual(missing.body.error?.data.hubError);
  });

  it("refuses a malformed list with the field named", async () => {
    const maintainer = await as("maintainer", "maintainer-demo");
    const bad = await maintainer.query("messages.routing", { ...ref, conversation_id: chat, seqs: ["one"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.data.hubError).toMatchObject({
      code: "invalid",
      details: { fields: { "seqs.0": "a message seq" } },
    });
    const many = await maintainer.query("messages.routing", {
      ...ref,
      conversation_id: chat,
      seqs: Array.from({ length: 201 }, (_, i) => i + 1),
    });
    expect(many.body.error?.data.hubError).toMatchObject({
      code: "invalid",
      details: { fields: { seqs: "at most 200" } },
    });
  });
});

describe("projects.names: no member id where a name exists", () => {
  it("M-240 names of members of the caller's projects, former ones too; an id the caller never meets is left out, as unknown", async () => {
    await hub.admin.createAgent({ owner: "carol", handle: "hidden", description: "Elsewhere." });
    await hub.admin.createAgent({ owner: "maintainer", handle: "gone", description: "Left." });
    await hub.admin.addMember(ref, { member_id: "agt-gone" });
    await hub.admin.removeMember(ref, "agt-gone", "removed");
    const maintainer = await as("maintainer", "maintainer-demo");
    const names = await maintainer.query("projects.names", {
      ids: ["agt-a", "hum-guest", "agt-gone", "agt-hidden", "hum-carol", "nobody"],
    });
    expect(names.body.result?.data).toEqual([
      { member_id: "agt-a", kind: "agent", handle: "agent-a", name: "maintainer/agent-a", owner_id: "hum-maintainer" },
      { member_id: "agt-gone", kind: "agent", handle: "gone", name: "maintainer/gone", owner_id: "hum-maintainer" },
      { member_id: "hum-guest", kind: "human", handle: "guest", name: "Guest", owner_id: null },
    ]);
    const carol = await as("carol", "carol-password");
    expect((await carol.query("projects.names", { ids: ["hum-maintainer", "agt-a"] })).body.result?.data).toEqual([]);
  });
});

import { type BusMessage, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../src/routers/index.ts";
import { ADMIN, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Reactions: people and agents put an emoji on a message of a room they are in and take it
// back; counts and who on both surfaces; observers, redacted messages and non-emoji refused; an
// agent's 👀 starts its typing indicator; no log event, the dashboard hears message_changed.

const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const A = "/api/agent-api";
const tokens: Record<string, string> = {};
let cnv = "";
let key = "";
let observed = "";

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const made = async (by: string, title: string, participants: string[]) => {
    const res = await rest("POST", `${P}/conversations`, { token: tokens[by], body: { title, participants } });
    if (!res.body.id) throw new Error(JSON.stringify(res.body));
    return res.body.id as string;
  };
  cnv = await made("hum-maintainer", "Reactions", ["agt-a", "hum-guest"]);
  key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: cnv }, select: { id: true } })).id;
  // The maintainer owns agt-a and is not in this one: an observer.
  observed = await made("hum-guest", "Observed", ["agt-a", "agt-x"]);
});

const as = (id: string) => ({ token: tokens[id] });
const post = async (by: string, body: string, chat = cnv) =>
  (await rest("POST", `${P}/conversations/${chat}/messages`, { ...as(by), body: { body } })).body.seq as number;
const put = (by: string, seq: number, emoji: string, chat = cnv) =>
  rest("PUT", `${P}/conversations/${chat}/messages/${seq}/reactions/${encodeURIComponent(emoji)}`, as(by));
const del = (by: string, seq: number, emoji: string) =>
  rest("DELETE", `${P}/conversations/${cnv}/messages/${seq}/reactions/${encodeURIComponent(emoji)}`, as(by));
const react = (by: string, seq: number, emoji: string, room = key) =>
  rest("POST", `${A}/conversations/${room}/messages/evt-${seq}/reactions`, { ...as(by), body: { emoji } });
const unreact = (by: string, seq: number, emoji: string) =>
  rest("DELETE", `${A}/conversations/${key}/messages/evt-${seq}/reactions?emoji=${encodeURIComponent(emoji)}`, as(by));

describe("reactions", () => {
  it("a repeated send (same Idempotency-Key) answers the message as it reads now, with the reactions it gathered", async () => {
    const send = (by: string) =>
      rest("POST", `${P}/conversations/${cnv}/messages`, {
        ...as(by),
        headers: { "idempotency-key": "react-replay-1" },
        body: { body: "replayed with reactions" },
      });
    const first = await send("hum-maintainer");
    expect(first.status).toBe(201);
    expect(first.body.reactions).toBeUndefined();
    await put("hum-guest", first.body.seq, "🎉");
    const again = await send("hum-maintainer");
    expect(again.status).toBe(200);
    expect(again.body.seq).toBe(first.body.seq);
    expect(again.body.reactions).toEqual([{ emoji: "🎉", count: 1, members: ["hum-guest"], mine: false }]);
    // The agent surface's repeat carries them too.
    const agentSend = () =>
      rest("POST", `${A}/conversations/${key}/messages`, {
        ...as("agt-a"),
        headers: { "idempotency-key": "react-replay-2" },
        body: { content: "agent line" },
      });
    const sent = await agentSend();
    expect(sent.status).toBe(201);
    const seq = Number(String(sent.body.id).replace("evt-", ""));
    await put("hum-guest", seq, "👀");
    const repeated = await agentSend();
    expect(repeated.status).toBe(200);
    expect(repeated.body.reactions).toEqual([expect.objectContaining({ emoji: "👀", count: 1 })]);
  });

  it("add, add again (idempotent), take back, take back again; counts, members oldest first, mine per reader", async () => {
    const seq = await post("hum-maintainer", "ship it?");
    const first = await put("hum-guest", seq, "👍");
    expect(first.status).toBe(200);
    expect(first.body).toEqual([{ emoji: "👍", count: 1, members: ["hum-guest"], mine: true }]);
    expect((await put("hum-guest", seq, "👍")).body).toEqual(first.body);
    const two = await put("hum-maintainer", seq, "👍");
    expect(two.body).toEqual([{ emoji: "👍", count: 2, members: ["hum-guest", "hum-maintainer"], mine: true }]);
    // The list shows them as each reader sees them.
    const page = await rest("GET", `${P}/conversations/${cnv}/messages?before=1000000`, as("hum-guest"));
    expect(page.body.items.find((m: { seq: number }) => m.seq === seq).reactions).toEqual([
      { emoji: "👍", count: 2, members: ["hum-guest", "hum-maintainer"], mine: true },
    ]);
    expect((await del("hum-guest", seq, "👍")).body).toEqual([
      { emoji: "👍", count: 1, members: ["hum-maintainer"], mine: false },
    ]);
    expect((await del("hum-guest", seq, "👍")).status).toBe(200);
    expect((await del("hum-maintainer", seq, "👍")).body).toEqual([]);
    const after = await rest("GET", `${P}/conversations/${cnv}/messages?before=1000000`, as("hum-guest"));
    expect(after.body.items.find((m: { seq: number }) => m.seq === seq)).not.toHaveProperty("reactions");
  });

  it("an agent reacts; both surfaces show who (reactors typed USER/AGENT on the agent's REST message)", async () => {
    const seq = await post("hum-guest", "agent, look");
    const res = await react("agt-a", seq, "🎉");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      messageId: `evt-${seq}`,
      reactions: [{ emoji: "🎉", count: 1, reactors: [{ id: "agt-a", type: "AGENT" }] }],
    });
    await put("hum-guest", seq, "🎉");
    const history = await rest("GET", `${A}/conversations/${key}/messages`, as("agt-a"));
    expect(history.body.messages.find((m: { id: string }) => m.id === `evt-${seq}`).reactions).toEqual([
      {
        emoji: "🎉",
        count: 2,
        reactors: [
          { id: "agt-a", type: "AGENT" },
          { id: "hum-guest", type: "USER" },
        ],
      },
    ]);
    const page = await rest("GET", `${P}/conversations/${cnv}/messages?before=1000000`, as("hum-maintainer"));
    expect(page.body.items.find((m: { seq: number }) => m.seq === seq).reactions).toEqual([
      { emoji: "🎉", count: 2, members: ["agt-a", "hum-guest"], mine: false },
    ]);
    expect((await unreact("agt-a", seq, "🎉")).body.reactions).toEqual([
      { emoji: "🎉", count: 1, reactors: [{ id: "hum-guest", type: "USER" }] },
    ]);
  });

  it("not an emoji → 400 naming emoji, on both surfaces", async () => {
    const seq = await post("hum-maintainer", "emoji?");
    for (const bad of ["ok", "👍👍", "a"]) {
      const maity = await put("hum-guest", seq, bad);
      expect(maity.status).toBe(400);
      expect(maity.body.error.details.fields).toEqual({ emoji: "not_an_emoji" });
      const agent = await react("agt-a", seq, bad);
      expect(agent.status).toBe(400);
      expect(agent.body.fields).toEqual({ emoji: "not_an_emoji" });
    }
    expect(await hub.db.reaction.count({ where: { eventSeq: seq } })).toBe(0);
  });

  it("an observer is refused (forbidden, observer); a redacted message is refused; unknown ones answer not found", async () => {
    const seen = await post("hum-guest", "observed", observed);
    const obs = await put("hum-maintainer", seen, "👍", observed);
    expect(obs.status).toBe(403);
    expect(obs.body.error.details.reason).toBe("observer");
    const seq = await post("hum-maintainer", "to be redacted");
    await rest("POST", `${P}/conversations/${cnv}/messages/${seq}/redact`, { ...as("hum-maintainer"), body: {} });
    const redacted = await put("hum-guest", seq, "👍");
    expect(redacted.status).toBe(409);
    const agentRedacted = await react("agt-a", seq, "👍");
    expect(agentRedacted.status).toBe(409);
    expect(agentRedacted.body.code).toBe("MESSAGE_DELETED");
    expect((await put("hum-guest", 99_999_999, "👍")).status).toBe(404);
    expect((await react("agt-a", 99_999_999, "👍")).status).toBe(404);
  });

  it("an agent not in the room → 404 like send", async () => {
    const seq = await post("hum-maintainer", "not for x");
    const res = await react("agt-x", seq, "👍");
    expect(res.status).toBe(404);
  });

  it("B-120 an agent's 👀 starts its typing indicator, another emoji does not; reactions append no event to the log", async () => {
    const seq = await post("hum-guest", "who takes this?");
    const typing: BusMessage[] = [];
    const stop = hub.bus.subscribe((m) => typing.push(m), "typing");
    const head = await hub.messages.lastSeq();
    await react("agt-a", seq, "👍");
    expect(typing).toEqual([]);
    await react("agt-a", seq, "👀");
    stop();
    expect(typing).toEqual([expect.objectContaining({ type: "typing", conversationId: cnv, memberId: "agt-a" })]);
    expect((typing[0] as { audience: string[] }).audience).toEqual(expect.arrayContaining(["hum-guest"]));
    expect(await hub.messages.lastSeq()).toBe(head);
  });

  it("tRPC reactions.add / reactions.remove, as the dashboard calls them", async () => {
    const seq = await post("hum-maintainer", "trpc");
    const browser = trpcBrowser(hub);
    await browser.mutation("auth.login", { handle: "guest", password: "guest-demo" });
    const input = { owner: "maintainer", slug: "maity", conversation_id: cnv, seq, emoji: "❤️" };
    const added = await browser.mutation("reactions.add", input);
    expect(added.body.result?.data).toEqual([{ emoji: "❤️", count: 1, members: ["hum-guest"], mine: true }]);
    const removed = await browser.mutation("reactions.remove", input);
    expect(removed.body.result?.data).toEqual([]);
  });

  it("live: a reaction reaches the room's readers as message_changed (what: reactions)", async () => {
    const seq = await post("hum-maintainer", "live reactions");
    const controller = new AbortController();
    const caller = { kind: "human" as const, id: "hum-maintainer", handle: "maintainer", name: "Maintainer" };
    const ctx = { hub, caller, session: null, resHeaders: new Headers(), secure: false, admin: "hidden" as const };
    const iterable = await appRouter.createCaller(ctx, { signal: controller.signal }).live.feed(undefined);
    const iterator = iterable[Symbol.asyncIterator]();
    // The first item says the feed is live (kind listening); what follows is the change.
    expect(((await iterator.next()).value as unknown as unknown[])[1]).toMatchObject({ kind: "listening" });
    const next = iterator.next();
    await react("agt-a", seq, "✅");
    // Every item of the feed is tracked at its position: [id, data].
    expect(((await next).value as unknown as unknown[])[1]).toEqual({
      seq,
      kind: "message_changed",
      conversation_id: cnv,
      project: { owner: "maintainer", slug: "maity" },
      what: "reactions",
    });
    controller.abort();
  });
});

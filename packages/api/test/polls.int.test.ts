import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../src/routers/index.ts";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// v1.12 polls (B-226…B-240) on both surfaces: the agent API's POST /polls, POST /polls/:id/vote and
// GET /polls/:id, the Maity routes, the tally each reader sees, and the live feed's message_changed.

const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const A = "/api/agent-api";
const tokens: Record<string, string> = {};
/** The team chat: maintainer (creator), agt-a, hum-guest. */
let cnv = "";
let key = "";
/** A chat the guest made with agt-x and agent-y: agt-a is not in it, the maintainer does not read it. */
let otherKey = "";
/** A chat the guest made with agt-a and agt-x: maintainer (agt-a's owner) reads along as an observer. */
let observed = "";
let observedKey = "";

const keyOf = async (publicId: string) =>
  (await hub.db.conversation.findFirstOrThrow({ where: { publicId }, select: { id: true } })).id;

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  const made = async (by: string, title: string, participants: string[]) => {
    const res = await rest("POST", `${P}/conversations`, { token: tokens[by], body: { title, participants } });
    if (!res.body.id) throw new Error(JSON.stringify(res.body));
    return res.body.id as string;
  };
  cnv = await made("hum-maintainer", "Polls", ["agt-a", "hum-guest"]);
  key = await keyOf(cnv);
  // A group chat holds more than one agent or person besides its creator: a second agent of the guest's.
  const y = await hub.admin.createAgent({ owner: "guest", handle: "agent-y", description: "Another agent." });
  await hub.admin.addMember({ owner: "maintainer", slug: "maity" }, { member_id: y.id });
  otherKey = await keyOf(await made("hum-guest", "Elsewhere", ["agt-x", y.id]));
  observed = await made("hum-guest", "Observed", ["agt-a", "agt-x"]);
  observedKey = await keyOf(observed);
});

const as = (id: string) => ({ token: tokens[id] });
const agentCreate = (by: string, body: Record<string, unknown>) => rest("POST", `${A}/polls`, { ...as(by), body });
const agentVote = (by: string, pollId: string, optionIndexes: unknown) =>
  rest("POST", `${A}/polls/${pollId}/vote`, { ...as(by), body: { optionIndexes } });
const maityVote = (by: string, pollId: string, option_indexes: number[]) =>
  rest("POST", `${P}/polls/${pollId}/vote`, { ...as(by), body: { option_indexes } });
const messageCount = () => hub.db.event.count({ where: { conversationId: key, kind: "message" } });

describe("v1.12 polls over the agent API", () => {
  it("B-226 B-234 B-239 create_poll: 201 the card.poll message, cardPayload, the fallback numbered from one", async () => {
    const res = await agentCreate("agt-a", {
      conversationId: key,
      question: "Ship on Friday?",
      options: ["Yes", "No"],
    });
    expect(res.status).toBe(201);
    const pollId = res.body.cardPayload.pollId;
    expect(pollId).toMatch(/^pol-/);
    expect(res.body).toMatchObject({
      senderId: "agt-a",
      content: "📊 Ship on Friday?\n1. Yes\n2. No",
      metadata: { type: "card.poll" },
      cardPayload: {
        pollId,
        question: "Ship on Friday?",
        options: ["Yes", "No"],
        askedBy: "agt-a",
        allowMultiple: false,
      },
      poll: { id: pollId, allowMultiple: false, closed: false, options: [], voterCount: 0, mine: [], canVote: true },
    });
    // The Maity message carries the card and the poll, every answer listed.
    const page = await rest("GET", `${P}/conversations/${cnv}/messages?before=1000000`, as("hum-guest"));
    const m = page.body.items.find((i: { id: string }) => i.id === res.body.id);
    expect(m.card).toEqual({ type: "card.poll", payload: res.body.cardPayload });
    expect(m.poll).toMatchObject({
      id: pollId,
      question: "Ship on Friday?",
      asked_by: "agt-a",
      options: [
        { index: 0, text: "Yes", count: 0, voters: [] },
        { index: 1, text: "No", count: 0, voters: [] },
      ],
      voter_count: 0,
      can_vote: true,
    });
  });

  it("B-227 B-376 2 and 10 answers are fine; 1, 11, the same word twice or no question → 400 INVALID_POLL, nothing written", async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `Option ${i + 1}`);
    expect((await agentCreate("agt-a", { conversationId: key, question: "Ten?", options: ten })).status).toBe(201);
    const before = await messageCount();
    for (const [body, field] of [
      [{ question: "One?", options: ["Only"] }, "options"],
      [{ question: "Eleven?", options: [...ten, "Option 11"] }, "options"],
      [{ question: "Same?", options: ["Yes", " yes"] }, "options.1"],
      [{ question: "  ", options: ["Yes", "No"] }, "question"],
    ] as const) {
      const res = await agentCreate("agt-a", { conversationId: key, ...body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "INVALID_POLL", fields: { [field]: "invalid_poll" } });
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect(await messageCount()).toBe(before);
    expect(await hub.db.poll.count({ where: { conversationId: key } })).toBe(2);
  });

  it("a room the agent is not in: 404 like send", async () => {
    const res = await agentCreate("agt-a", { conversationId: otherKey, question: "Q?", options: ["A", "B"] });
    expect(res.status).toBe(404);
  });

  it("B-228 B-229 B-236 B-240 vote, read (GET /polls/:id), change, the same vote twice changes nothing (not even `at`), withdraw", async () => {
    const pollId = (await agentCreate("agt-a", { conversationId: key, question: "Lunch?", options: ["Pizza", "Soup"] }))
      .body.cardPayload.pollId;
    const first = await agentVote("agt-a", pollId, [0]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: pollId,
      options: [{ index: 0, count: 1, voters: [{ id: "agt-a", type: "AGENT" }] }],
      voterCount: 1,
      mine: [0],
      canVote: true,
    });
    const again = await agentVote("agt-a", pollId, [0]);
    expect(again.body).toEqual(first.body);
    const changed = await agentVote("agt-a", pollId, [1]);
    expect(changed.body).toMatchObject({ options: [{ index: 1, count: 1 }], mine: [1], voterCount: 1 });
    const got = await rest("GET", `${A}/polls/${pollId}`, as("agt-a"));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(changed.body);
    const withdrawn = await agentVote("agt-a", pollId, []);
    expect(withdrawn.body).toMatchObject({ options: [], voterCount: 0, mine: [] });
  });

  it("B-232 B-233 B-376 allowMultiple holds several (duplicates collapse); a single-choice poll refuses two; an index it lacks is refused", async () => {
    const multi = (
      await agentCreate("agt-a", {
        conversationId: key,
        question: "Days?",
        options: ["Mo", "Tu", "We"],
        allowMultiple: true,
      })
    ).body.cardPayload.pollId;
    const res = await agentVote("agt-a", multi, [2, 0, 2]);
    expect(res.status).toBe(200);
    expect(res.body.mine).toEqual([0, 2]);
    expect(res.body.voterCount).toBe(1);
    const single = (await agentCreate("agt-a", { conversationId: key, question: "One?", options: ["A", "B"] })).body
      .cardPayload.pollId;
    const two = await agentVote("agt-a", single, [0, 1]);
    expect(two.status).toBe(400);
    expect(two.body.code).toBe("POLL_SINGLE_CHOICE");
    for (const bad of [[2], [-1]]) {
      const out = await agentVote("agt-a", single, bad);
      expect(out.status).toBe(400);
      expect(out.body.code).toBe("INVALID_OPTION_INDEX");
    }
    expect((await rest("GET", `${A}/polls/${single}`, as("agt-a"))).body.voterCount).toBe(0);
  });

  it("B-228 one voter's concurrent votes are applied one at a time: the last held set is whole, never a mix", async () => {
    const pollId = (
      await agentCreate("agt-a", {
        conversationId: key,
        question: "Race?",
        options: ["A", "B", "C"],
        allowMultiple: true,
      })
    ).body.cardPayload.pollId;
    const sets = [[0], [1, 2], [2], [0, 1, 2], []];
    const answers = await Promise.all(sets.map((set) => agentVote("agt-a", pollId, set)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const held = (await rest("GET", `${A}/polls/${pollId}`, as("agt-a"))).body.mine;
    expect(sets).toContainEqual(held);
  });

  it("B-230 an unknown poll and another room's poll answer the same 404 POLL_NOT_FOUND", async () => {
    const elsewhere = (await agentCreate("agt-x", { conversationId: otherKey, question: "Q?", options: ["A", "B"] }))
      .body.cardPayload.pollId;
    const unknown = await rest("GET", `${A}/polls/pol-doesnotexist`, as("agt-a"));
    const hidden = await rest("GET", `${A}/polls/${elsewhere}`, as("agt-a"));
    expect(unknown.status).toBe(404);
    expect(hidden).toEqual(unknown);
    expect(hidden.body).toEqual({ error: "poll not found", code: "POLL_NOT_FOUND" });
    expect(await agentVote("agt-a", elsewhere, [0])).toEqual(await agentVote("agt-a", "pol-doesnotexist", [0]));
    // The room's own agent reads it.
    expect((await rest("GET", `${A}/polls/${elsewhere}`, as("agt-x"))).status).toBe(200);
  });

  it("B-235 B-237 B-238 the spec's tally: humans vote over Maity, the agent sees them; absent zero answers; distinct voters", async () => {
    const res = await agentCreate("agt-a", {
      conversationId: key,
      question: "Which?",
      options: ["A", "B", "C"],
      allowMultiple: true,
    });
    const pollId = res.body.cardPayload.pollId;
    expect((await maityVote("hum-maintainer", pollId, [0, 2])).status).toBe(200);
    expect((await maityVote("hum-guest", pollId, [0])).status).toBe(200);
    const tally = (await rest("GET", `${A}/polls/${pollId}`, as("agt-a"))).body;
    expect(tally).toMatchObject({
      id: pollId,
      allowMultiple: true,
      closed: false,
      options: [
        {
          index: 0,
          count: 2,
          voters: [
            { id: "hum-maintainer", type: "USER", at: expect.any(String) },
            { id: "hum-guest", type: "USER", at: expect.any(String) },
          ],
        },
        { index: 2, count: 1, voters: [{ id: "hum-maintainer", type: "USER" }] },
      ],
      voterCount: 2,
      mine: [],
      canVote: true,
    });
    // The reverse: the agent votes, the humans see it beside theirs (no anonymous mode).
    await agentVote("agt-a", pollId, [1]);
    const seen = (await rest("GET", `${P}/polls/${pollId}`, as("hum-guest"))).body;
    expect(seen).toMatchObject({
      voter_count: 3,
      mine: [0],
      can_vote: true,
      options: [
        { index: 0, text: "A", count: 2 },
        { index: 1, text: "B", count: 1, voters: [{ member_id: "agt-a" }] },
        { index: 2, text: "C", count: 1 },
      ],
    });
  });

  it("B-234 B-235 the poll on GET …/messages for the agent (history and since) with its tally", async () => {
    const res = await agentCreate("agt-a", { conversationId: key, question: "Read me?", options: ["Yes", "No"] });
    const pollId = res.body.cardPayload.pollId;
    await maityVote("hum-guest", pollId, [1]);
    const history = await rest("GET", `${A}/conversations/${key}/messages`, as("agt-a"));
    const m = history.body.messages.find((x: { id: string }) => x.id === res.body.id);
    expect(m.cardPayload.pollId).toBe(pollId);
    expect(m.poll).toMatchObject({ id: pollId, options: [{ index: 1, count: 1 }], voterCount: 1, mine: [] });
    const since = await rest(
      "GET",
      `${A}/conversations/${key}/messages?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`,
      as("agt-a"),
    );
    expect(since.body.messages.find((x: { id: string }) => x.id === res.body.id).poll.id).toBe(pollId);
    // A plain message has no poll.
    const plain = await rest("POST", `${A}/conversations/${key}/messages`, { ...as("agt-a"), body: { content: "hi" } });
    const after = await rest("GET", `${A}/conversations/${key}/messages`, as("agt-a"));
    expect(after.body.messages.find((x: { id: string }) => x.id === plain.body.id)).not.toHaveProperty("poll");
  });
});

describe("v1.12 polls on the Maity surface", () => {
  it("B-231 B-376 OQ-B-25 POST …/polls → 201 the message with card and poll; vote and close; a closed poll refuses votes (409 POLL_CLOSED)", async () => {
    const res = await rest("POST", `${P}/conversations/${cnv}/polls`, {
      ...as("hum-maintainer"),
      body: { question: "Release?", options: ["Now", "Later"] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      from: "hum-maintainer",
      body: "📊 Release?\n1. Now\n2. Later",
      card: { type: "card.poll", payload: { question: "Release?", askedBy: "hum-maintainer" } },
      poll: { question: "Release?", asked_by: "hum-maintainer", can_vote: true, voter_count: 0 },
    });
    const pollId = res.body.poll.id;
    expect((await maityVote("hum-guest", pollId, [1])).body).toMatchObject({ mine: [1], voter_count: 1 });
    // OQ-B-25: neither a participant who is not the asker nor a manager closes it.
    const refused = await rest("POST", `${P}/polls/${pollId}/close`, as("hum-guest"));
    expect(refused.status).toBe(403);
    const closed = await rest("POST", `${P}/polls/${pollId}/close`, as("hum-maintainer"));
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ closed: true, can_vote: false });
    const late = await maityVote("hum-guest", pollId, [0]);
    expect(late.status).toBe(409);
    expect(late.body.error.details.agent_code).toBe("POLL_CLOSED");
    const agentLate = await agentVote("agt-a", pollId, [0]);
    expect(agentLate.status).toBe(409);
    expect(agentLate.body.code).toBe("POLL_CLOSED");
    // Closing twice changes nothing.
    expect((await rest("POST", `${P}/polls/${pollId}/close`, as("hum-maintainer"))).body).toEqual(closed.body);
  });

  it("Maity refusals: INVALID_POLL naming the field, POLL_SINGLE_CHOICE on option_indexes", async () => {
    const bad = await rest("POST", `${P}/conversations/${cnv}/polls`, {
      ...as("hum-guest"),
      body: { question: "Q?", options: ["Yes", "YES"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({
      fields: { "options.1": "invalid_poll" },
      agent_code: "INVALID_POLL",
    });
    const pollId = (
      await rest("POST", `${P}/conversations/${cnv}/polls`, {
        ...as("hum-guest"),
        body: { question: "Q?", options: ["A", "B"] },
      })
    ).body.poll.id;
    const two = await maityVote("hum-guest", pollId, [0, 1]);
    expect(two.status).toBe(400);
    expect(two.body.error.details.fields).toEqual({ option_indexes: "poll_single_choice" });
  });

  it("an observer (the agent's owner reading along) reads the poll with can_vote false and cannot vote", async () => {
    const pollId = (
      await agentCreate("agt-a", { conversationId: observedKey, question: "Seen?", options: ["Yes", "No"] })
    ).body.cardPayload.pollId;
    const seen = await rest("GET", `${P}/polls/${pollId}`, as("hum-maintainer"));
    expect(seen.status).toBe(200);
    expect(seen.body.can_vote).toBe(false);
    const page = await rest("GET", `${P}/conversations/${observed}/messages?before=1000000`, as("hum-maintainer"));
    expect(page.body.items.at(-1).poll).toMatchObject({ id: pollId, can_vote: false });
    const vote = await maityVote("hum-maintainer", pollId, [0]);
    expect(vote.status).toBe(403);
    expect(vote.body.error.details.reason).toBe("observer");
  });

  it("a closed chat takes no votes: canVote false for everyone, a vote answers 409 CONVERSATION_CLOSED", async () => {
    const made = await rest("POST", `${P}/conversations`, {
      ...as("hum-guest"),
      body: { title: "Closing", participants: ["agt-a", "agt-x"] },
    });
    const closing = made.body.id as string;
    const pollId = (
      await rest("POST", `${P}/conversations/${closing}/polls`, {
        ...as("hum-guest"),
        body: { question: "Stay?", options: ["Yes", "No"] },
      })
    ).body.poll.id;
    // Its last person leaves: the chat closes (§9.2), the agents stay.
    expect((await rest("DELETE", `${P}/conversations/${closing}/participants/hum-guest`, as("hum-guest"))).status).toBe(
      200,
    );
    const got = await rest("GET", `${A}/polls/${pollId}`, as("agt-a"));
    expect(got.body.canVote).toBe(false);
    const vote = await agentVote("agt-a", pollId, [0]);
    expect(vote.status).toBe(409);
    expect(vote.body.code).toBe("CONVERSATION_CLOSED");
    const page = await rest("GET", `${A}/conversations/${await keyOf(closing)}/messages`, as("agt-a"));
    expect(page.body.messages.find((m: { poll?: { id: string } }) => m.poll?.id === pollId).poll.canVote).toBe(false);
  });

  it("a poll of a chat the caller does not read answers not_found", async () => {
    const elsewhere = (await agentCreate("agt-x", { conversationId: otherKey, question: "Q?", options: ["A", "B"] }))
      .body.cardPayload.pollId;
    const res = await rest("GET", `${P}/polls/${elsewhere}`, as("hum-maintainer"));
    expect(res.status).toBe(404);
    expect(res).toEqual(await rest("GET", `${P}/polls/pol-nothere`, as("hum-maintainer")));
  });

  it("live: a vote reaches the room's readers as message_changed (what: poll)", async () => {
    const pollId = (await agentCreate("agt-a", { conversationId: key, question: "Live?", options: ["A", "B"] })).body
      .cardPayload.pollId;
    const poll = await hub.db.poll.findUniqueOrThrow({ where: { id: pollId }, select: { eventSeq: true } });
    const controller = new AbortController();
    const caller = { kind: "human" as const, id: "hum-guest", handle: "guest", name: "Guest" };
    const ctx = { hub, caller, session: null, resHeaders: new Headers(), secure: false, admin: "hidden" as const };
    const iterable = await appRouter.createCaller(ctx, { signal: controller.signal }).live.feed(undefined);
    const iterator = iterable[Symbol.asyncIterator]();
    // The first item says the feed is live (kind listening); what follows is the change.
    expect(((await iterator.next()).value as unknown as unknown[])[1]).toMatchObject({ kind: "listening" });
    const next = iterator.next();
    await agentVote("agt-a", pollId, [0]);
    // Every item of the feed is tracked at its position: [id, data].
    expect(((await next).value as unknown as unknown[])[1]).toEqual({
      seq: poll.eventSeq,
      kind: "message_changed",
      conversation_id: cnv,
      project: { owner: "maintainer", slug: "maity" },
      what: "poll",
    });
    controller.abort();
  });
});

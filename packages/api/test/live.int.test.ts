import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { appRouter } from "../src/routers/index.ts";
import { ADMIN, createWithVisitors, restClient, testHub } from "./helpers.ts";

// The dashboard's live feed: tracked(seq) items, backfill on resume, no doubles.
const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity/conversations";
const PROJECT = "/api/projects/maintainer/maity";
const tokens: Record<string, string> = {};
const human = (id: string, handle: string) => ({ kind: "human" as const, id, handle, name: handle });

function feed(caller: ReturnType<typeof human>, lastEventId?: string) {
  const controller = new AbortController();
  const ctx = { hub, caller, session: null, resHeaders: new Headers(), secure: false, admin: "hidden" as const };
  const iterable = appRouter
    .createCaller(ctx, { signal: controller.signal })
    .live.feed(lastEventId ? { lastEventId } : undefined);
  let iterator: AsyncIterator<unknown> | null = null;
  return {
    async next(): Promise<
      { id?: string; data?: { seq: number; kind: string; conversation_id: string | null } } & Record<string, unknown>
    > {
      iterator ??= (await iterable)[Symbol.asyncIterator]();
      const { value } = await iterator.next();
      // tracked() items arrive as [id, data, symbol]; plain ones as the object.
      if (Array.isArray(value)) return { id: value[0], data: value[1] };
      return { data: value as never };
    },
    /** The connection's first item: `listening` from the log's head — no sleep guesses when the feed is live. */
    async listening(): Promise<number> {
      const first = await this.next();
      expect(first.data).toMatchObject({ kind: "listening", conversation_id: null, project: null });
      expect(first.id).toBe(String(first.data?.seq));
      return first.data?.seq as number;
    },
    stop: () => controller.abort(),
  };
}

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { body: { member_id: id }, token: ADMIN })).body.token;
});

describe("live.feed", () => {
  it("pushes a message posted over REST to a participant, tracked by its seq, with the message rendered once; redaction comes as its own item", async () => {
    const chat = (
      await rest("POST", P, { token: tokens["hum-maintainer"], body: { title: "Live", participants: ["hum-guest"] } })
    ).body.id;
    const guest = feed(human("hum-guest", "guest"));
    await guest.listening();
    const first = guest.next();
    const posted = await rest("POST", `${P}/${chat}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "live?" },
    });
    expect(await first).toEqual({
      id: String(posted.body.seq),
      // The open chat adds the message from the event: the same message the writer's POST answered.
      data: {
        seq: posted.body.seq,
        kind: "message",
        conversation_id: chat,
        project: { owner: "maintainer", slug: "maity" },
        message: posted.body,
      },
    });
    const redaction = guest.next();
    await rest("POST", `${P}/${chat}/messages/${posted.body.seq}/redact`, {
      token: tokens["hum-maintainer"],
      body: {},
    });
    // A redaction moves no position of the log: it is tracked where the feed is (after the message).
    expect(await redaction).toMatchObject({
      id: String(posted.body.seq),
      data: { seq: posted.body.seq, kind: "redaction", conversation_id: chat },
    });
    guest.stop();
  });

  it("resumes after lastEventId with what it missed, in order, without doubles", async () => {
    const chat = (
      await rest("POST", P, { token: tokens["hum-maintainer"], body: { title: "Resume", participants: ["hum-guest"] } })
    ).body.id;
    const a = await rest("POST", `${P}/${chat}/messages`, { token: tokens["hum-maintainer"], body: { body: "one" } });
    const b = await rest("POST", `${P}/${chat}/messages`, { token: tokens["hum-maintainer"], body: { body: "two" } });
    const c = await rest("POST", `${P}/${chat}/messages`, { token: tokens["hum-maintainer"], body: { body: "three" } });
    const resumed = feed(human("hum-guest", "guest"), String(a.body.seq));
    expect((await resumed.next()).id).toBe(String(b.body.seq));
    expect((await resumed.next()).id).toBe(String(c.body.seq));
    // Backfilled, then live: the listening item comes after what was missed, from where the log stood.
    expect(await resumed.listening()).toBeGreaterThanOrEqual(c.body.seq);
    const d = resumed.next();
    const posted = await rest("POST", `${P}/${chat}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "four" },
    });
    expect((await d).id).toBe(String(posted.body.seq));
    resumed.stop();
  });

  it("a read on one device tells the reader's other devices (the badge clears)", async () => {
    const chat = (
      await rest("POST", P, { token: tokens["hum-maintainer"], body: { title: "Read", participants: ["hum-guest"] } })
    ).body.id;
    const posted = await rest("POST", `${P}/${chat}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "read me" },
    });
    const guest = feed(human("hum-guest", "guest"));
    await guest.listening();
    const next = guest.next();
    await rest("GET", `${P}/${chat}/messages`, { token: tokens["hum-guest"] });
    expect((await next).data).toMatchObject({ seq: posted.body.seq, kind: "read", conversation_id: chat });
    guest.stop();
  });

  it("nothing reaches a member outside the audience", async () => {
    const chat = (
      await createWithVisitors(rest, PROJECT, (id) => tokens[id] as string, "hum-maintainer", {
        title: "Private",
        participants: ["agt-a", "agt-x"],
      })
    ).body.id;
    const guest = feed(human("hum-guest", "guest"));
    await guest.listening();
    const next = guest.next();
    await rest("POST", `${P}/${chat}/messages`, {
      token: tokens["hum-maintainer"],
      body: { body: "not for the guest" },
    });
    const marker = await rest("POST", `${P}/agt-x/messages`, {
      token: tokens["hum-guest"],
      body: { body: "the guest's own" },
    });
    // The first item the guest sees is its own direct message, not the chat it only reads along.
    expect((await next).data).toMatchObject({ seq: marker.body.seq, conversation_id: "agt-x" });
    guest.stop();
  });

  it("agent protocol §7: an agent's POST …/typing reaches the chat's people as a typing item, tracked at the feed's position like every item, never the agent itself", async () => {
    const agentToken = (await rest("POST", "/api/admin/tokens", { body: { member_id: "agt-a" }, token: ADMIN })).body
      .token as string;
    const rooms = (await (
      await handleRest(
        hub,
        new Request("http://127.0.0.1/api/agent-api/conversations", {
          headers: { authorization: `Bearer ${agentToken}` },
        }),
      )
    ).json()) as { conversations: { id: string; type: string }[] };
    const dm = rooms.conversations.find((r) => r.type === "DM")?.id as string;
    const owner = feed(human("hum-maintainer", "maintainer"));
    const position = await owner.listening();
    const next = owner.next();
    const res = await handleRest(
      hub,
      new Request(`http://127.0.0.1/api/agent-api/conversations/${dm}/typing`, {
        method: "POST",
        headers: { authorization: `Bearer ${agentToken}` },
      }),
    );
    expect(res.status).toBe(200);
    // One shape for every item (the browser guesses nothing); a resume from here starts where the feed is.
    expect(await next).toEqual({
      id: String(position),
      data: {
        seq: 0,
        kind: "typing",
        conversation_id: "agt-a",
        project: { owner: "maintainer", slug: "maity" },
        member_id: "agt-a",
      },
    });
    owner.stop();
  });

  it("a person's messages.typing reaches the chat's other participants as a typing item, not the writer; an observer is refused", async () => {
    const chat = (
      await createWithVisitors(rest, PROJECT, (id) => tokens[id] as string, "hum-maintainer", {
        title: "Typing",
        participants: ["hum-guest", "agt-x"],
      })
    ).body.id;
    const guest = feed(human("hum-guest", "guest"));
    const position = await guest.listening();
    const next = guest.next();
    const ctx = (caller: ReturnType<typeof human>) => ({
      hub,
      caller,
      session: null,
      resHeaders: new Headers(),
      secure: false,
      admin: "hidden" as const,
    });
    const maintainer = appRouter.createCaller(ctx(human("hum-maintainer", "maintainer")));
    expect(await maintainer.messages.typing({ owner: "maintainer", slug: "maity", conversation_id: chat })).toEqual({
      ok: true,
    });
    expect(await next).toEqual({
      id: String(position),
      data: {
        seq: 0,
        kind: "typing",
        conversation_id: chat,
        project: { owner: "maintainer", slug: "maity" },
        member_id: "hum-maintainer",
      },
    });
    guest.stop();
    // The demo's group chat: the guest reads along as agent-x's owner, and an observer does not write.
    const observed = (
      await hub.db.conversation.findFirstOrThrow({
        where: { title: "Release 0.2 go/no-go" },
        select: { publicId: true },
      })
    ).publicId;
    const observer = appRouter.createCaller(ctx(human("hum-guest", "guest")));
    await expect(
      observer.messages.typing({ owner: "maintainer", slug: "maity", conversation_id: observed }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

import { DEMO_LOGINS, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub, trpcBrowser } from "./helpers.ts";

const hub = await testHub();
const rest = restClient(hub);
afterAll(() => hub.close());
let agentToken = "";
let humanToken = "";

beforeAll(async () => {
  expect(await seedDemo(hub)).toBe(true);
  agentToken = (await rest("POST", "/api/admin/tokens", { body: { member_id: "agt-a" }, token: ADMIN })).body.token;
  humanToken = (await rest("POST", "/api/admin/tokens", { body: { member_id: "hum-maintainer" }, token: ADMIN })).body
    .token;
});

describe("demo data", () => {
  it("seeds the spec's example once", async () => {
    expect(await seedDemo(hub)).toBe(false);
    const members = await hub.db.membership.findMany({
      where: { project: { slug: "maity" } },
      select: { memberId: true, permissions: true },
      orderBy: { memberId: "asc" },
    });
    expect(members).toEqual([
      { memberId: "agt-a", permissions: [] },
      { memberId: "agt-x", permissions: [] },
      { memberId: "hum-guest", permissions: [] },
      { memberId: "hum-maintainer", permissions: ["members:admin"] },
    ]);
    const chat = await hub.db.conversation.findFirstOrThrow({
      where: { kind: "group" },
      select: { title: true, publicId: true },
    });
    expect(chat.title).toBe("Release 0.2 go/no-go");
    expect(chat.publicId).toMatch(/^cnv-\d{4}$/);
  });
});

describe("the vertical slice: login → tRPC post → REST read by the agent", () => {
  it("works end to end", async () => {
    const browser = trpcBrowser(hub);
    const maintainer = DEMO_LOGINS[0];
    const login = await browser.mutation("auth.login", { handle: maintainer.handle, password: maintainer.password });
    expect(login.status).toBe(200);
    expect(login.setCookie).toMatch(/^maity_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);

    const list = await browser.query("conversations.list", { owner: "maintainer", slug: "maity" });
    const { items } = (list.body.result?.data ?? { items: [] }) as {
      items: { id: string; kind: string; unread: number }[];
    };
    // Both kinds in one list (M-005): the seeded group chat's message is the newest activity.
    expect(items.map((i) => i.kind)).toEqual(["group", "direct"]);
    const direct = items.find((i) => i.id === "agt-a");
    expect(direct?.unread).toBe(0); // the human's own message after the agent's moved the marker

    const body = `Slice check ${Date.now()}`;
    const posted = await browser.mutation("messages.post", {
      owner: "maintainer",
      slug: "maity",
      conversation_id: "agt-a",
      body,
    });
    expect(posted.status).toBe(200);
    const message = (
      posted.body.result?.data as
        | { message: { seq: number; from: string; to: string; delivered_at: string | null } }
        | undefined
    )?.message as { seq: number; from: string; to: string; delivered_at: string | null };
    expect(message).toMatchObject({ from: "hum-maintainer", to: "agt-a", delivered_at: null });

    const read = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a/messages", {
      token: agentToken,
    });
    expect(read.status).toBe(200);
    const last = read.body.items.at(-1);
    expect(last).toMatchObject({
      id: `evt-${message.seq}`,
      seq: message.seq,
      conversation_id: "agt-a",
      from: "hum-maintainer",
      to: "agt-a",
      body,
      mentions: [],
      attachments: [],
      from_instance: null,
      to_instance: null,
      redacted: false,
      redaction: null,
    });
    // §9.1: delivered_at is set on the first return to the recipient, and only once.
    expect(last.delivered_at).toEqual(expect.any(String));
    const again = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a/messages?after=0", {
      token: agentToken,
    });
    expect(again.body.items.at(-1).delivered_at).toBe(last.delivered_at);
  });

  it("the agent's reply counts as unread for the human until read", async () => {
    const reply = await rest("POST", "/api/projects/maintainer/maity/conversations/agt-a/messages", {
      token: agentToken,
      body: { body: "Done." },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ from: "agt-a", to: "hum-maintainer" });
    const before = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a", { token: humanToken });
    expect(before.body.unread).toBe(1);
    expect(before.body.last_message).toMatchObject({ seq: reply.body.seq, body: "Done.", redacted: false });
    await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a/messages", { token: humanToken });
    const after = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a", { token: humanToken });
    expect(after.body.unread).toBe(0);
  });

  it("posting refuses bad input with the field named and writes nothing", async () => {
    const seqBefore = await hub.db.event.count();
    for (const body of [{}, { body: "   " }, { body: 5 }, { body: "x".repeat(20_001) }]) {
      const res = await rest("POST", "/api/projects/maintainer/maity/conversations/agt-a/messages", {
        token: humanToken,
        body,
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.details.fields)).toEqual(["body"]);
    }
    const both = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a/messages?after=1&before=3", {
      token: humanToken,
    });
    expect(both.status).toBe(400);
    expect(await hub.db.event.count()).toBe(seqBefore);
  });

  it("tRPC input errors render as the hub's invalid with fields", async () => {
    const browser = trpcBrowser(hub);
    const res = await browser.mutation("auth.login", { handle: "", password: "" });
    expect(res.status).toBe(400);
    expect(res.body.error?.data.hubError).toMatchObject({
      code: "invalid",
      details: { fields: { handle: "required", password: "required" } },
    });
  });

  it("hidden answers like missing: guest cannot see maintainer's direct conversation", async () => {
    const guestToken = (await rest("POST", "/api/admin/tokens", { body: { member_id: "hum-guest" }, token: ADMIN }))
      .body.token;
    const hidden = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-a/messages", {
      token: guestToken,
    });
    const missing = await rest("GET", "/api/projects/maintainer/maity/conversations/agt-nope/messages", {
      token: guestToken,
    });
    expect(hidden).toEqual(missing);
    expect(hidden.status).toBe(404);
    const project = await rest("GET", "/api/projects/nobody/nothing/conversations", { token: guestToken });
    expect(project.status).toBe(404);
  });

  it("logout ends the session", async () => {
    const browser = trpcBrowser(hub);
    await browser.mutation("auth.login", { handle: "guest", password: "guest-demo" });
    expect((await browser.query("auth.me")).body.result?.data).toMatchObject({ id: "hum-guest" });
    const out = await browser.mutation("auth.logout", {});
    expect(out.setCookie).toMatch(/Max-Age=0/);
    expect(await hub.db.session.count({ where: { humanId: "hum-guest" } })).toBe(0);
  });

  it("a wrong password and an unknown handle answer alike", async () => {
    const a = await trpcBrowser(hub).mutation("auth.login", { handle: "guest", password: "wrong-password" });
    const b = await trpcBrowser(hub).mutation("auth.login", { handle: "nobody", password: "wrong-password" });
    expect(a.status).toBe(401);
    expect(a.body.error?.data.hubError).toEqual(b.body.error?.data.hubError);
  });
});

describe("tokens: stored as SHA-256, revocable, 401 without telling", () => {
  it("the database holds no plaintext token", async () => {
    const rows = await hub.db.accessToken.findMany({ select: { hash: true } });
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(await hub.db.accessToken.findMany());
    expect(dump).not.toContain(agentToken);
    expect(dump).not.toContain(humanToken);
    expect(dump).not.toContain(agentToken.slice(4));
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    const sessions = JSON.stringify(await hub.db.session.findMany());
    expect(sessions).not.toMatch(/maity_session/);
  });

  it("a bad, missing or revoked bearer answers the same 401", async () => {
    const path = "/api/projects/maintainer/maity/conversations";
    const fresh = (await rest("POST", "/api/admin/tokens", { body: { member_id: "hum-maintainer" }, token: ADMIN }))
      .body.token;
    expect((await rest("GET", path, { token: fresh })).status).toBe(200);
    const revoke = await rest("POST", "/api/admin/tokens/revoke", { body: { token: fresh }, token: ADMIN });
    expect(revoke).toEqual({ status: 200, body: { revoked: true } });
    const revoked = await rest("GET", path, { token: fresh });
    const unknown = await rest("GET", path, { token: "mty_doesnotexist" });
    const garbage = await rest("GET", path, { token: "garbage" });
    const missing = await rest("GET", path, {});
    const malformed = await rest("GET", path, { headers: { authorization: "Basic abc" } });
    for (const res of [revoked, unknown, garbage, missing, malformed]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(revoked.body);
    }
  });
});

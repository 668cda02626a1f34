import { handleRest } from "@maity/api/rest";
import { freshDatabase } from "@maity/db/testing";
import { createHub } from "@maity/hub";
import { afterAll, describe, expect, it } from "vitest";
import { createRestClient, HubApiError } from "../src/index.ts";

// The REST client against the real routes: every call by procedure name, its path from the router
// (routes.gen.ts), its input and answer typed by the procedure's schemas.
const hub = createHub(await freshDatabase());
afterAll(() => hub.close());
const ADMIN = "client-admin";
const fetchHub: typeof fetch = (input, init) =>
  handleRest(hub, new Request(input as string, init), { adminToken: ADMIN });
const admin = createRestClient({ baseUrl: "http://127.0.0.1", token: ADMIN, fetch: fetchHub });
const M = { owner: "maintainer", slug: "maity" };

describe("the REST client (M-004 M-005 M-158)", () => {
  it("creates, posts, replies, lists, pins, redacts and reads events through typed calls", async () => {
    await admin.call("admin.createHuman", { handle: "maintainer", name: "Maintainer", password: "maintainer-pw" });
    await admin.call("admin.createHuman", { handle: "guest", name: "Guest", password: "guest-pass" });
    await admin.call("admin.createProject", { ...M, name: "Maity" });
    await admin.call("admin.addMember", { ...M, member_id: "hum-guest" });
    const { token } = await admin.call("admin.mintToken", { member_id: "hum-maintainer" });
    const client = createRestClient({ baseUrl: "http://127.0.0.1", token, fetch: fetchHub });

    const create = { ...M, title: "Client", participants: ["hum-guest"], idempotency_key: "k1" };
    const chat = await client.call("conversations.create", create);
    expect(chat).toMatchObject({ kind: "group", title: "Client", access: "participant" });
    // The Idempotency-Key header, filled from the input field the route names (meta.rest.headers).
    expect(await client.call("conversations.create", create)).toEqual(chat);
    const room = { ...M, conversation_id: chat.id };
    const posted = await client.call("messages.post", { ...room, body: "@guest hello" });
    expect(posted.mentions).toEqual([{ member_id: "hum-guest", handle: "guest", field: "body", offset: 0, length: 6 }]);
    // reply_to, which the hand-typed client had lost, reaches the hub: a target it does not know is refused.
    const reply = await client.call("messages.post", { ...room, body: "and again", reply_to: posted.seq });
    expect(reply).toMatchObject({ body: "and again", seq: posted.seq + 1 });
    const wrong = await client.call("messages.post", { ...room, body: "x", reply_to: 9999 }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 400, details: { fields: { reply_to: expect.any(String) } } });
    const sameWrite = await client.call("events.post", { ...M, type: "chat", conversation_id: chat.id, body: "again" });
    expect(sameWrite).toMatchObject({ conversation_id: chat.id, to: chat.id, body: "again" });

    await client.call("conversations.pin", room);
    const list = await client.call("conversations.list", M);
    expect(list.items.map((i) => [i.id, i.pinned])).toEqual([[chat.id, true]]);
    const mine = await client.call("conversations.mine");
    expect(mine.items[0]?.project.full_name).toBe("maintainer/maity");
    expect(mine.totals).toEqual({ unread: 0, mentions_unread: 0 });

    const redacted = await client.call("messages.redact", { ...room, seq: posted.seq, reason: "typo" });
    expect(redacted).toMatchObject({ body: null, redacted: true, redaction: { by: "hum-maintainer", reason: "typo" } });
    const events = await client.call("events.list", { ...M, after: 0 });
    expect(events.items.map((e) => e.kind)).toEqual(["conversation_created", "message", "message", "message"]);

    const rename = { ...room, title: "x".repeat(300) };
    const refused = await client.call("conversations.update", rename).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HubApiError);
    const fields = { title: "at most 200 characters" };
    expect(refused).toMatchObject({ status: 400, code: "invalid", details: { fields } });
  });
});

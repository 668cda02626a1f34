import { handleRest } from "@maity/api/rest";
import { freshDatabase } from "@maity/db/testing";
import { createHub } from "@maity/hub";
import { afterAll, describe, expect, it } from "vitest";
import { createRestClient, HubApiError } from "../src/index.ts";

// The typed REST client against the real routes: answers parsed by the domain's schemas.
const hub = createHub(await freshDatabase());
afterAll(() => hub.close());
const ADMIN = "client-admin";
const fetchHub: typeof fetch = (input, init) => handleRest(hub, new Request(input as string, init), { adminToken: ADMIN });
const admin = createRestClient({ baseUrl: "http://127.0.0.1", token: ADMIN, fetch: fetchHub });

describe("the REST client (M-004 M-005 M-158)", () => {
  it("creates, posts, lists, pins, redacts and reads events through typed calls", async () => {
    await admin.admin.createHuman({ handle: "maintainer", name: "Maintainer", password: "maintainer-pw" });
    await admin.admin.createHuman({ handle: "guest", name: "Guest", password: "guest-pass" });
    await admin.admin.createProject({ owner: "maintainer", slug: "maity", name: "Maity" });
    await admin.admin.addMember("maintainer", "maity", { member_id: "hum-guest" });
    const { token } = await admin.admin.mintToken({ member_id: "hum-maintainer" });
    const client = createRestClient({ baseUrl: "http://127.0.0.1", token, fetch: fetchHub });

    const chat = await client.conversations.create("maintainer", "maity", { title: "Client", participants: ["hum-guest"] }, { idempotencyKey: "k1" });
    expect(chat).toMatchObject({ kind: "group", title: "Client", access: "participant" });
    expect(await client.conversations.create("maintainer", "maity", { title: "Client", participants: ["hum-guest"] }, { idempotencyKey: "k1" })).toEqual(chat);
    const posted = await client.messages.post("maintainer", "maity", chat.id, { body: "@guest hello" });
    expect(posted.mentions).toEqual([{ member_id: "hum-guest", handle: "guest", field: "body", offset: 0, length: 6 }]);
    const sameWrite = await client.events.post("maintainer", "maity", { type: "chat", conversation_id: chat.id, body: "again" });
    expect(sameWrite).toMatchObject({ conversation_id: chat.id, to: chat.id, body: "again" });

    await client.conversations.pin("maintainer", "maity", chat.id);
    const list = await client.conversations.list("maintainer", "maity");
    expect(list.items.map((i) => [i.id, i.pinned])).toEqual([[chat.id, true]]);
    const mine = await client.conversations.mine();
    expect(mine.items[0]?.project.full_name).toBe("maintainer/maity");
    expect(mine.totals).toEqual({ unread: 0, mentions_unread: 0 });

    const redacted = await client.messages.redact("maintainer", "maity", chat.id, posted.seq, "typo");
    expect(redacted).toMatchObject({ body: null, redacted: true, redaction: { by: "hum-maintainer", reason: "typo" } });
    const events = await client.events.list("maintainer", "maity", { after: 0 });
    expect(events.items.map((e) => e.kind)).toEqual(["conversation_created", "message", "message"]);

    const refused = await client.conversations.rename("maintainer", "maity", chat.id, "x".repeat(300)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HubApiError);
    expect(refused).toMatchObject({ status: 400, code: "invalid", details: { fields: { title: "at most 200 characters" } } });
  });
});

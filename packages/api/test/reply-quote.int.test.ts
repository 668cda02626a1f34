import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restClient, testHub, trpcBrowser } from "./helpers.ts";

// The open chat quotes what a reply answers, so a message carries reply_to (the seq it
// answers) when it was posted as a reply — in the post's answer, the window, the history and the
// live feed's message — and carries no such field otherwise.

const hub = await testHub({ limits: { agent: 10_000, updates: 10_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const ref = { owner: "maintainer", slug: "maity" };
let chat: string;

beforeAll(async () => {
  await seedDemo(hub);
  chat = (await hub.db.conversation.findFirstOrThrow({ where: { kind: "group" }, select: { publicId: true } }))
    .publicId;
});

describe("reply_to on a message: the quoted reply", () => {
  it("a reply carries the seq it answers; a plain message carries none", async () => {
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "maintainer", password: "maintainer-demo" })).status).toBe(
      200,
    );
    const post = async (input: object) =>
      (await browser.mutation("messages.post", { ...ref, conversation_id: chat, ...input })).body.result?.data as {
        message: { seq: number; reply_to?: number };
      };
    const first = (await post({ body: "the original" })).message;
    expect(first).not.toHaveProperty("reply_to");
    const reply = (await post({ body: "the answer", reply_to: first.seq })).message;
    expect(reply.reply_to).toBe(first.seq);
    const history = (
      await browser.query("messages.list", { ...ref, conversation_id: chat, before: reply.seq + 1, limit: 2 })
    ).body.result?.data as { items: { seq: number; reply_to?: number }[] };
    expect(history.items.map((m) => m.reply_to ?? null)).toEqual([null, first.seq]);
    // The REST answer has it too (the same render).
    const token = (await hub.admin.mintToken({ member_id: "hum-maintainer" })).token;
    const listed = await rest(
      "GET",
      `/api/projects/maintainer/maity/conversations/${chat}/messages?before=${reply.seq + 1}&limit=1`,
      {
        token,
      },
    );
    expect(listed.body.items[0].reply_to).toBe(first.seq);
  });
});

import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { uploaded } from "./attachments.ts";
import { ADMIN, createWithVisitors, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// The file library (v1.7, v1.17, B-203…B-210), the Maity attachment reads (§8.7, M-142, M-163) and
// redaction's file half (§8.5, M-039).

const hub = await testHub({ limits: { agent: 100_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const P = "/api/projects/maintainer/maity";
const T: Record<string, string> = {};
/** Maity ids and internal keys of the chats. */
const chat: Record<string, { id: string; key: string }> = {};
const files: Record<string, string> = {};

async function agentCall(method: string, path: string, token: string, body?: unknown) {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/agent-api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, body: await res.json() };
}
const raw = (path: string, token: string) =>
  handleRest(hub, new Request(`${BASE}${path}`, { headers: { authorization: `Bearer ${token}` } }));

async function makeChat(name: string, by: string, title: string, participants: string[]) {
  // guest places its agent-x, a visitor here (B-300).
  const made = await createWithVisitors(rest, P, (id) => T[id] as string, by, { title, participants });
  expect(made.status).toBe(201);
  const key = (await hub.db.conversation.findFirstOrThrow({ where: { publicId: made.body.id }, select: { id: true } }))
    .id;
  chat[name] = { id: made.body.id, key };
}
async function sendFile(name: string, who: string, chatName: string, fileName: string) {
  const id = await uploaded(hub, who, { name: fileName, bayId: who === "agt-x" ? "bay-guest" : "bay-maintainer" });
  const c = chat[chatName] as { id: string; key: string };
  const res = who.startsWith("agt-")
    ? await agentCall("POST", `/conversations/${c.key}/messages`, T[who] as string, {
        content: fileName,
        attachments: [{ attachmentId: id }],
      })
    : await rest("POST", `${P}/conversations/${c.id}/messages`, {
        token: T[who],
        body: { body: fileName, attachments: [id] },
      });
  expect(res.status).toBe(201);
  files[name] = id;
  return res.body;
}

beforeAll(async () => {
  await seedDemo(hub);
  const outsider = await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "outsider", name: "Outsider", password: "outsider-pass-1" },
  });
  expect(outsider.status).toBe(201);
  // A member of the project in none of its chats, owning no agent in them.
  await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "bystander", name: "Bystander", password: "bystander-pass-1" },
  });
  const joined = await rest("POST", "/api/admin/projects/maintainer/maity/members", {
    token: ADMIN,
    body: { member_id: "hum-bystander" },
  });
  expect(joined.status).toBe(201);
  for (const id of ["agt-a", "agt-x", "hum-maintainer", "hum-guest", "hum-outsider", "hum-bystander"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  await makeChat("a", "hum-maintainer", "Chat A", ["agt-a", "agt-x", "hum-guest"]);
  await makeChat("b", "hum-maintainer", "Chat B", ["agt-a", "agt-x"]);
  await makeChat("c", "hum-maintainer", "Chat C", ["hum-guest"]);
  // The guest's chat with the maintainer's agent: the maintainer reads along as its owner (observer).
  await makeChat("d", "hum-guest", "Chat D", ["agt-a"]);
  await sendFile("a", "agt-a", "a", "a-report.pdf");
  await sendFile("b", "hum-maintainer", "b", "b-notes.pdf");
  await sendFile("c", "hum-maintainer", "c", "c-private.pdf");
  await sendFile("d", "agt-a", "d", "d-shared.pdf");
  files.unsent = await uploaded(hub, "agt-a", { name: "unsent.pdf" });
  files.lib = await uploaded(hub, "hum-maintainer", { name: "handbook.pdf" });
  const added = await rest("POST", `${P}/library`, { token: T["hum-maintainer"], body: { attachment_id: files.lib } });
  expect(added.status).toBe(201);
});

describe("the agent's file listing and links", () => {
  it("B-203 B-205 B-206 B-207 B-208 this chat, the library and the project's other chats the agent is in; no URLs", async () => {
    const res = await agentCall("GET", `/conversations/${chat.a?.key}/attachments`, T["agt-a"] as string);
    expect(res.status).toBe(200);
    const byId = new Map(res.body.files.map((f: { attachmentId: string }) => [f.attachmentId, f]));
    expect([...byId.keys()].sort()).toEqual([files.a, files.b, files.d, files.lib].sort());
    expect(byId.get(files.a)).toMatchObject({
      fileName: "a-report.pdf",
      type: "file",
      mimeType: "application/pdf",
      senderId: "agt-a",
      messageId: expect.stringMatching(/^evt-\d+$/),
      source: { kind: "chat", conversationId: chat.a?.key, title: "Chat A" },
    });
    expect(byId.get(files.b)).toMatchObject({ source: { kind: "chat", conversationId: chat.b?.key, title: "Chat B" } });
    expect(byId.get(files.lib)).toMatchObject({
      fileName: "handbook.pdf",
      messageId: null,
      source: { kind: "project" },
    });
    expect(res.body.scope).toBe("project");
    expect(res.body.total).toBe(4);
    expect(res.body.totalBytes).toBe(
      res.body.files.reduce((sum: number, f: { sizeBytes: number }) => sum + f.sizeBytes, 0),
    );
    expect(JSON.stringify(res.body)).not.toMatch(/https?:|\/api\/files/);
  });

  it("B-210 a visiting agent gets this chat's files only: no library, never another chat's", async () => {
    const res = await agentCall("GET", `/conversations/${chat.a?.key}/attachments`, T["agt-x"] as string);
    expect(res.status).toBe(200);
    expect(res.body.files.map((f: { attachmentId: string }) => f.attachmentId)).toEqual([files.a]);
  });

  it("B-204 B-185 one fresh signed URL for a listed file; a file outside the listing 404; not in the room 403", async () => {
    const link = await agentCall(
      "GET",
      `/conversations/${chat.a?.key}/attachments/${files.b}/link`,
      T["agt-a"] as string,
    );
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ attachmentId: files.b, fileName: "b-notes.pdf", mimeType: "application/pdf" });
    const u = new URL(link.body.url);
    expect(u.origin).toBe(new URL(BASE).origin);
    expect(
      hub.fileKeys.verify(files.b as string, u.searchParams.get("exp") ?? "", u.searchParams.get("sig") ?? ""),
    ).toBe(true);
    expect(new Date(link.body.expiresAt).getTime()).toBe(Number(u.searchParams.get("exp")) * 1000);
    for (const outside of [files.c, files.unsent, "att-nothing00000000"]) {
      const res = await agentCall(
        "GET",
        `/conversations/${chat.a?.key}/attachments/${outside}/link`,
        T["agt-a"] as string,
      );
      expect(res.status).toBe(404);
    }
    for (const path of [`/conversations/${chat.c?.key}/attachments`, "/conversations/nosuchroom000/attachments"]) {
      const res = await agentCall("GET", path, T["agt-a"] as string);
      expect(res).toMatchObject({ status: 403, body: { code: "NOT_PARTICIPANT" } });
    }
  });
});

describe("the Maity attachment reads", () => {
  it("M-142 M-163 a participant and an observer (the agent's owner reading along) read a file; others not_found", async () => {
    const participant = await rest("GET", `${P}/attachments/${files.d}`, { token: T["hum-guest"] });
    expect(participant.status).toBe(200);
    expect(participant.body).toMatchObject({
      id: files.d,
      type: "file",
      file_name: "d-shared.pdf",
      conversation_id: chat.d?.id,
      seq: expect.any(Number),
      deleted: false,
    });
    const observer = await rest("GET", `${P}/attachments/${files.d}`, { token: T["hum-maintainer"] });
    expect(observer.status).toBe(200);
    // A member in none of the chats, a non-member, an unknown id and another's unsent upload read alike.
    const refusals = [
      await rest("GET", `${P}/attachments/${files.b}`, { token: T["hum-bystander"] }),
      await rest("GET", `${P}/attachments/${files.a}`, { token: T["hum-outsider"] }),
      await rest("GET", `${P}/attachments/att-nothing00000000`, { token: T["hum-guest"] }),
      await rest("GET", `${P}/attachments/${files.unsent}`, { token: T["hum-maintainer"] }),
    ];
    for (const r of refusals) expect(r.status).toBe(404);
    expect(new Set(refusals.map((r) => JSON.stringify(r.body))).size).toBe(1);
  });

  it("M-142 a non-member owner reading along with its agent reads the agent's files; an unsent upload its uploader only", async () => {
    await rest("POST", "/api/admin/humans", {
      token: ADMIN,
      // Of the maintainer's Bay (DESIGN §4c): its agent is the project's own, placed by anyone in the chat.
      body: { handle: "lender", name: "Lender", password: "lender-pass-12", bay: "maintainer" },
    });
    const agent = await rest("POST", "/api/admin/agents", {
      token: ADMIN,
      body: { owner: "lender", handle: "helper" },
    });
    expect(agent.status).toBe(201);
    const added = await rest("POST", "/api/admin/projects/maintainer/maity/members", {
      token: ADMIN,
      body: { member_id: agent.body.id },
    });
    expect(added.status).toBe(201);
    T["hum-lender"] = (
      await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: "hum-lender" } })
    ).body.token;
    await makeChat("lent", "hum-maintainer", "Lent", [agent.body.id, "hum-guest"]);
    const sent = await sendFile("lent", "hum-maintainer", "lent", "for-the-helper.pdf");
    expect(sent.attachments).toHaveLength(1);
    const read = await rest("GET", `${P}/attachments/${files.lent}`, { token: T["hum-lender"] });
    expect(read).toMatchObject({
      status: 200,
      body: { file_name: "for-the-helper.pdf", conversation_id: chat.lent?.id },
    });
    expect((await raw(`${P}/attachments/${files.lent}/content`, T["hum-lender"] as string)).status).toBe(200);
    // Not a chat the lender's agent is in: not_found.
    expect((await rest("GET", `${P}/attachments/${files.c}`, { token: T["hum-lender"] })).status).toBe(404);
    // B-197: an unsent upload is its uploader's alone.
    const mine = await uploaded(hub, "hum-guest", { name: "draft.pdf" });
    expect((await rest("GET", `${P}/attachments/${mine}`, { token: T["hum-guest"] })).body).toMatchObject({
      file_name: "draft.pdf",
      conversation_id: null,
      seq: null,
    });
    expect((await raw(`${P}/attachments/${mine}/content`, T["hum-guest"] as string)).status).toBe(200);
    expect((await rest("GET", `${P}/attachments/${mine}`, { token: T["hum-maintainer"] })).status).toBe(404);
  });

  it("M-256 §8.7 the content: bytes, type, the name in Content-Disposition, nosniff; ?download=1", async () => {
    const res = await raw(`${P}/attachments/${files.a}/content`, T["hum-guest"] as string);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toContain("attachment;");
    expect(res.headers.get("content-disposition")).toContain("filename*=UTF-8''a-report.pdf");
    expect(await res.text()).toBe(`the bytes of ${files.a}`);
    const image = await uploaded(hub, "hum-guest", { mimeType: "image/png", name: "Ünïcode pic.png" });
    const posted = await rest("POST", `${P}/conversations/${chat.c?.id}/messages`, {
      token: T["hum-guest"],
      body: { body: "", attachments: [image] },
    });
    expect(posted.status).toBe(201);
    const inline = await raw(`${P}/attachments/${image}/content`, T["hum-maintainer"] as string);
    expect(inline.headers.get("content-disposition")).toMatch(/^inline; filename="_n_code pic.png"/);
    const download = await raw(`${P}/attachments/${image}/content?download=1`, T["hum-maintainer"] as string);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect((await raw(`${P}/attachments/${files.c}/content`, T["hum-outsider"] as string)).status).toBe(404);
  });
});

describe("the project library (v1.17)", () => {
  it("a member adds an own unsent upload; another's or a sent one is refused without naming it", async () => {
    const own = await uploaded(hub, "hum-guest", { name: "guest-guide.pdf" });
    const added = await rest("POST", `${P}/library`, { token: T["hum-guest"], body: { attachment_id: own } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: own, file_name: "guest-guide.pdf", uploader_id: "hum-guest" });
    for (const id of [files.unsent, files.a, own]) {
      const res = await rest("POST", `${P}/library`, { token: T["hum-guest"], body: { attachment_id: id } });
      expect(res.status).toBe(409);
      expect(JSON.stringify(res.body)).not.toContain(id);
    }
    const listed = await rest("GET", `${P}/library`, { token: T["hum-guest"] });
    expect(listed.body.map((f: { id: string }) => f.id).sort()).toEqual([files.lib, own].sort());
    expect((await rest("GET", `${P}/library`, { token: T["hum-outsider"] })).status).toBe(404);
    // A library file reads for members (M-163), not for a non-member.
    expect((await rest("GET", `${P}/attachments/${own}`, { token: T["hum-maintainer"] })).status).toBe(200);
    expect((await rest("GET", `${P}/attachments/${own}`, { token: T["hum-outsider"] })).status).toBe(404);
  });

  it("its uploader or a project admin removes a file: the bytes are deleted", async () => {
    const mine = await uploaded(hub, "hum-maintainer", { name: "to-remove.pdf" });
    await rest("POST", `${P}/library`, { token: T["hum-maintainer"], body: { attachment_id: mine } });
    const refused = await rest("DELETE", `${P}/library/${mine}`, { token: T["hum-guest"] });
    expect(refused.status).toBe(403);
    expect((await rest("DELETE", `${P}/library/${mine}`, { token: T["hum-maintainer"] })).status).toBe(204);
    expect(await hub.blobs.get(`files/${mine}`)).toBeNull();
    expect(
      (await rest("GET", `${P}/library`, { token: T["hum-maintainer"] })).body.map((f: { id: string }) => f.id),
    ).not.toContain(mine);
  });
});

describe("the dashboard's procedures", () => {
  it("M-030 messages.post with attachments, attachments.get and library.list over tRPC (session cookie)", async () => {
    const browser = trpcBrowser(hub);
    const login = await browser.mutation("auth.login", { handle: "guest", password: "guest-demo" });
    expect(login.status).toBe(200);
    const id = await uploaded(hub, "hum-guest", { mimeType: "image/webp", name: "sketch.webp" });
    const ref = { owner: "maintainer", slug: "maity" };
    const posted = await browser.mutation("messages.post", {
      ...ref,
      conversation_id: chat.c?.id,
      body: "",
      attachments: [id],
    });
    expect(posted.status).toBe(200);
    const got = await browser.query("attachments.get", { ...ref, attachment_id: id });
    expect(got.body.result?.data).toMatchObject({ id, type: "image", file_name: "sketch.webp", deleted: false });
    const listed = await browser.query("library.list", ref);
    expect(((listed.body.result?.data ?? []) as { id: string }[]).map((f) => f.id)).toContain(files.lib);
  });
});

describe("redaction deletes the files (§8.5, M-039)", () => {
  it("M-039 M-256 the bytes go, the row is a tombstone, and no surface shows the file any more", async () => {
    const sent = await sendFile("r", "agt-a", "a", "to-redact.pdf");
    const id = files.r as string;
    expect(await hub.blobs.get(`files/${id}`)).not.toBeNull();
    const seq = Number(String(sent.id).replace(/^evt-/, ""));
    const redacted = await rest("POST", `${P}/conversations/${chat.a?.id}/messages/${seq}/redact`, {
      token: T["hum-maintainer"],
      body: { reason: "wrong file" },
    });
    expect(redacted.status).toBe(200);
    expect(redacted.body.attachments).toEqual([]);
    expect(await hub.blobs.get(`files/${id}`)).toBeNull();
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id }, select: { deletedAt: true } });
    expect(row.deletedAt).not.toBeNull();
    const poll = await agentCall("GET", `/conversations/${chat.a?.key}/messages?limit=50`, T["agt-a"] as string);
    const message = poll.body.messages.find((m: { id: string }) => m.id === sent.id);
    expect(message.metadata).toBeNull();
    const listing = await agentCall("GET", `/conversations/${chat.a?.key}/attachments`, T["agt-a"] as string);
    expect(listing.body.files.map((f: { attachmentId: string }) => f.attachmentId)).not.toContain(id);
    const link = await agentCall("GET", `/conversations/${chat.a?.key}/attachments/${id}/link`, T["agt-a"] as string);
    expect(link.status).toBe(404);
    expect((await raw(`${P}/attachments/${id}/content`, T["hum-maintainer"] as string)).status).toBe(404);
    expect((await rest("GET", `${P}/attachments/${id}`, { token: T["hum-maintainer"] })).body.deleted).toBe(true);
  });
});

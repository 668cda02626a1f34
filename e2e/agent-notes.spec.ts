import { expect, test } from "@playwright/test";
import WebSocket from "ws";
import { AgentApiError, connect } from "../packages/client/src/index.ts";
import { curl } from "./clients";
import { admin } from "./helpers";

// The brief and the notes on the shipped server (`pnpm start`, as README says), with the clients
// users run: curl writes the brief and a pinned note as a person and long-polls as an agent with
// features=brief,notes; the SDK writes, lists, opens and edits notes as the agent and meets the
// version conflict as a typed error naming the current version (004 v1.15–v1.17).

const M = "/api/projects/maintainer/maity";

test("B-268 B-265 curl, /ws and the SDK: the brief and a pinned note ride the agent's next event, again from an older cursor on /ws; an edit from a stale version is refused with the current one", async ({
  request,
  baseURL,
}) => {
  const url = baseURL as string;
  const archivist = (await admin(request, "POST", "/agents", {
    owner: "maintainer",
    handle: "archivist",
    description: "Keeps notes.",
  })) as { id: string };
  await admin(request, "POST", "/projects/maintainer/maity/members", { member_id: archivist.id });
  const { token: person } = await admin(request, "POST", "/tokens", { member_id: "hum-maintainer" });
  const { token } = await admin(request, "POST", "/tokens", { member_id: archivist.id });
  const json = async (args: string[]) => {
    const run = await curl(args);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout);
  };
  const asPerson = ["-H", `authorization: Bearer ${person}`, "-H", "content-type: application/json"];
  const asAgent = ["-H", `authorization: Bearer ${token}`];

  const room = await json([
    ...asPerson,
    "-X",
    "POST",
    `${url}${M}/conversations`,
    "-d",
    JSON.stringify({ title: "Archive", participants: [archivist.id, "hum-guest"] }),
  ]);
  const start = await json([...asAgent, `${url}/api/agent-api/updates?wait=0&features=brief,notes`]);
  const brief = `Archive everything (${Date.now()}).`;
  await json([...asPerson, "-X", "PUT", `${url}${M}/brief`, "-d", JSON.stringify({ brief })]);
  const note = await json([
    ...asPerson,
    "-X",
    "POST",
    `${url}${M}/conversations/${room.id}/notes`,
    "-d",
    JSON.stringify({ title: "Retention", body: "Keep 30 days.", pinned: true }),
  ]);
  await json([
    ...asPerson,
    "-X",
    "POST",
    `${url}${M}/conversations/${room.id}/messages`,
    "-d",
    '{"body":"hello archive"}',
  ]);
  const answer = await json([
    ...asAgent,
    `${url}/api/agent-api/updates?wait=5&features=brief,notes&cursor=${start.cursor}`,
  ]);
  const event = answer.events.find((e: { message: { content: string } }) => e.message.content === "hello archive");
  expect(event.brief).toBe(brief);
  expect(event.notes.pinned).toEqual([
    { id: note.id, scope: "chat", title: "Retention", version: 1, body: "Keep 30 days." },
  ]);

  // The same feed over /ws on the shipped server: a hello resuming from before that event, asking
  // for the brief and the notes, is handed them again (the answer above counts as never received).
  const socket = new WebSocket(`${url.replace("http", "ws")}/api/agent-api/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const again = await new Promise<{ brief?: string; notes?: { pinned: { id: string }[] } }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no event on /ws within 10 s")), 10_000);
    socket.on("open", () =>
      socket.send(JSON.stringify({ t: "hello", resume: start.cursor, features: ["brief", "notes"] })),
    );
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.t === "event" && frame.message.content === "hello archive") {
        clearTimeout(timer);
        resolve(frame);
      }
    });
  });
  socket.close();
  expect(again.brief).toBe(brief);
  expect(again.notes?.pinned.map((n) => n.id)).toEqual([note.id]);

  // The SDK, as the agent: its own note, the list, the note, an edit, then a stale edit.
  const agent = connect({ baseUrl: url, token });
  const key = event.conversationId as string;
  const made = await agent.createNote({ conversationId: key, title: "Index", body: "- 2026" });
  expect(made).toMatchObject({ scope: "chat", version: 1, pinned: false });
  expect((await agent.notes(key)).map((n) => n.title)).toEqual(["Retention", "Index"]);
  expect((await agent.note(note.id, key)).body).toBe("Keep 30 days.");
  const edited = await agent.updateNote({
    noteId: note.id,
    baseVersion: 1,
    body: "Keep 90 days.",
    conversationId: key,
  });
  expect(edited.version).toBe(2);
  const stale = await agent.updateNote({ noteId: note.id, baseVersion: 1, body: "Keep 7 days." }).catch((e) => e);
  expect(stale).toBeInstanceOf(AgentApiError);
  expect(stale).toMatchObject({ status: 409, code: "NOTE_VERSION_CONFLICT", body: { version: 2 } });
  // Pins are people's.
  const pin = await agent.updateNote({ noteId: made.id, baseVersion: 1, pinned: true }).catch((e) => e);
  expect(pin).toMatchObject({ status: 403, code: "NOTE_FORBIDDEN" });
});

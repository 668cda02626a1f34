import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, deviceLogin, restClient, testHub } from "./helpers.ts";

// A fresh start with a handoff (004 §18, B-289…B-296), the server's side, over the routes: the
// person asks, the relay hosting the session reads what to hand it, the session saves its handoff
// note with the handoffId (checked, nothing saved when refused), and only then may that relay
// report the session cleared, then fresh. Nothing is cleared without a saved note.

const hub = await testHub({ limits: { preauth: 1_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const T: Record<string, string> = {};
const P = "/api/projects/maintainer/maity";

/** A device login of `person` approved for all their Bays: the credential of Bay `bay`. */
const device = (person: string, bay: string) => deviceLogin(rest, T[person] ?? null, bay);
const asSession = (token: string, session: string) => ({ token, headers: { "x-maity-session": session } });

let host: string;
let room: string;
let maityId: string;
let sessionId: string;
beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
  host = await device("hum-maintainer", "maintainer");
  const joined = await rest("POST", "/api/device-api/sessions", {
    token: host,
    body: { session: "worker", group: "Release 0.2 go/no-go" },
  });
  expect(joined.status).toBe(200);
  room = joined.body.conversation.id;
  maityId = joined.body.conversation.maityId;
  sessionId = joined.body.session.id;
});

const note = (body: string, extra: Record<string, unknown> = {}, conversationId = room) =>
  rest("POST", `/api/agent-api/conversations/${conversationId}/notes`, {
    ...asSession(host, "worker"),
    body: { title: "Handoff · today", body, ...extra },
  });
const handoffs = (token: string) => rest("GET", "/api/device-api/handoff", { token });
const report = (token: string, handoffId: string, step: string, result?: string) =>
  rest("POST", "/api/device-api/handoff", { token, body: { handoffId, step, ...(result ? { result } : {}) } });
const notesOfRoom = async () => (await hub.db.note.count({ where: { conversationId: room } })) as number;
const LONG = "Working on the release notes; decided to tag 0.2 tonight; next: run the smoke tests.";

describe("a fresh start with a handoff (B-289…B-296)", () => {
  it("B-289 B-290 B-291 B-292 B-293 B-295 B-296 asked by the person; cleared only after a saved note; the quiet lines", async () => {
    const asked = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-maintainer"] ?? null,
      body: { conversation_id: room },
    });
    expect(asked.status).toBe(201);
    const handoffId = asked.body.handoff_id as string;
    expect(asked.body).toMatchObject({ state: "awaiting_note", conversation_id: room, note_id: null });
    expect(asked.body.prompt).toContain(`handoffId: "${handoffId}"`);
    expect(asked.body.prompt).toContain(`conversationId: "${room}"`);
    expect(asked.body.prompt).toMatch(/title: "Handoff · \d{4}-\d{2}-\d{2}"/);
    // The relay hosting the session reads it; another computer of the same person does not.
    const pending = await handoffs(host);
    expect(pending.body.items).toEqual([
      expect.objectContaining({ handoffId, session: "worker", state: "awaiting_note", conversationId: room }),
    ]);
    const other = await device("hum-maintainer", "maintainer");
    expect((await handoffs(other)).body.items).toEqual([]);

    // B-293: nothing is cleared without a saved note.
    const early = await report(host, handoffId, "cleared");
    expect(early.status).toBe(409);
    expect(early.body.error).toBe("nothing is cleared without a saved handoff note");

    // B-291: too short, or filed elsewhere: refused, nothing saved.
    const before = await notesOfRoom();
    const short = await note("done", { handoffId });
    expect(short).toMatchObject({ status: 400, body: { code: "HANDOFF_NOTE_INVALID", reason: "TOO_SHORT" } });
    const priv = await rest("POST", "/api/device-api/sessions", { token: host, body: { session: "worker" } });
    const elsewhere = await note(LONG, { handoffId }, priv.body.conversation.id);
    expect(elsewhere).toMatchObject({ status: 400, body: { code: "HANDOFF_NOTE_INVALID", reason: "WRONG_PLACE" } });
    expect(await notesOfRoom()).toBe(before);

    const saved = await note(LONG, { handoffId });
    expect(saved.status).toBe(201);
    expect(await notesOfRoom()).toBe(before + 1);
    const after = await handoffs(host);
    expect(after.body.items[0]).toMatchObject({ state: "note_saved", noteId: saved.body.id });

    // Only the hosting relay reports; cleared, then fresh with what the relay found.
    expect((await report(other, handoffId, "cleared")).status).toBe(404);
    expect((await report(host, handoffId, "fresh")).status).toBe(409);
    expect(await report(host, handoffId, "cleared")).toEqual({ status: 200, body: { handoffId, state: "cleared" } });
    expect(await report(host, handoffId, "fresh", "UNVERIFIED")).toEqual({
      status: 200,
      body: { handoffId, state: "fresh" },
    });
    const latest = await rest("GET", `/api/sessions/${sessionId}/fresh-start`, { token: T["hum-maintainer"] ?? null });
    expect(latest.body).toMatchObject({ state: "fresh", result: "UNVERIFIED", note_id: saved.body.id });
    const lines = await rest("GET", `${P}/conversations/${maityId}/messages`, { token: T["hum-maintainer"] ?? null });
    const bodies = (lines.body.items as { body: string }[]).map((m) => m.body);
    expect(bodies).toEqual(
      expect.arrayContaining(["worker saved a handoff note", "worker started fresh from its handoff note"]),
    );
  });

  it("B-293 with no note in 15 minutes it is cancelled: the handoffId is spent, nothing is cleared; one at a time", async () => {
    const asked = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-maintainer"] ?? null,
      body: { conversation_id: room },
    });
    const handoffId = asked.body.handoff_id as string;
    const twice = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-maintainer"] ?? null,
      body: {},
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.details.reason).toBe("under_way");
    await hub.db.freshStart.update({ where: { id: handoffId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await note(LONG, { handoffId });
    expect(late).toMatchObject({ status: 400, body: { code: "HANDOFF_NOTE_INVALID", reason: "WRONG_PLACE" } });
    expect((await report(host, handoffId, "cleared")).status).toBe(409);
    expect((await handoffs(host)).body.items).toEqual([]);
    // A new one may be asked once the old one ran out.
    const next = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-maintainer"] ?? null,
      body: {},
    });
    expect(next.status).toBe(201);
    expect(next.body.conversation_id).toBe(room);
  });

  it("B-289 B-294 the person's alone; a session visiting another Bay is never started fresh there", async () => {
    const byGuest = await rest("POST", `/api/sessions/${sessionId}/fresh-start`, {
      token: T["hum-guest"] ?? null,
      body: {},
    });
    const unknown = await rest("POST", "/api/sessions/agt-nobody/fresh-start", {
      token: T["hum-guest"] ?? null,
      body: {},
    });
    expect(byGuest).toEqual(unknown);
    expect(byGuest.status).toBe(404);
    // guest's session in the maintainer's Bay is a visitor there.
    await rest("POST", `${P}/conversations`, {
      token: T["hum-maintainer"] ?? null,
      body: { title: "Guests welcome", participants: ["hum-guest", "agt-a"] },
    });
    const guestDevice = await device("hum-guest", "maintainer");
    const visiting = await rest("POST", "/api/device-api/sessions", {
      token: guestDevice,
      body: { session: "visitor", group: "Guests welcome" },
    });
    expect(visiting.status).toBe(200);
    const refused = await rest("POST", `/api/sessions/${visiting.body.session.id}/fresh-start`, {
      token: T["hum-guest"] ?? null,
      body: {},
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe("visiting");
    const auto = await rest("PATCH", `/api/sessions/${sessionId}`, {
      token: T["hum-maintainer"] ?? null,
      body: { fresh_start_at_95: true },
    });
    expect(auto.body).toMatchObject({ fresh_start_at_95: true, name: "worker" });
  });

  it("DESIGN §4e a person lists their sessions (Bay, device, fresh start); a session shows its person in a room; never paired", async () => {
    const mine = await rest("GET", "/api/me/sessions", { token: T["hum-maintainer"] ?? null });
    const worker = (mine.body.items as { name: string }[]).find((s) => s.name === "worker");
    expect(worker).toMatchObject({
      id: sessionId,
      bay: { name: "maintainer" },
      visiting: false,
      fresh_start_at_95: true,
      fresh_start: { state: "awaiting_note" },
      device: { id: expect.stringMatching(/^dev-/) },
    });
    const guests = await rest("GET", "/api/me/sessions", { token: T["hum-guest"] ?? null });
    expect((guests.body.items as { name: string; visiting: boolean }[]).map((s) => [s.name, s.visiting])).toEqual([
      ["visitor", true],
    ]);
    const view = await rest("GET", `${P}/conversations/${maityId}`, { token: T["hum-maintainer"] ?? null });
    const entry = (view.body.participants as { member_id: string; session?: unknown }[]).find(
      (p) => p.member_id === sessionId,
    );
    expect(entry?.session).toEqual({ person: { id: "hum-maintainer", name: "Maintainer" } });
    const agentA = (view.body.participants as { member_id: string }[]).find((p) => p.member_id === "agt-a");
    expect(agentA).not.toHaveProperty("session");
    // Not an agent to pair: the people's agent list leaves it out, a pairing code for it is not found.
    const agents = await rest("GET", "/api/agents", { token: T["hum-maintainer"] ?? null });
    if (agents.status === 200) expect((agents.body as { id: string }[]).map((a) => a.id)).not.toContain(sessionId);
  });
});

describe("a fresh start by itself at 95 % (B-289, B-283)", () => {
  it("B-289 B-283 the relay's reading for a session at 95 % starts one when its person let it, not before, not twice", async () => {
    const joined = await rest("POST", "/api/device-api/sessions", {
      token: host,
      body: { session: "auto", group: "Release 0.2 go/no-go" },
    });
    const id = joined.body.session.id as string;
    const report = (used: number) =>
      rest("POST", "/api/device-api/context", {
        token: host,
        body: { session: "auto", runtime: "claude-code", event: "usage", used, size: 200_000, source: "exact" },
      });
    const state = async () =>
      (
        (await rest("GET", "/api/me/sessions", { token: T["hum-maintainer"] ?? null })).body.items as {
          id: string;
          fresh_start: { state: string } | null;
        }[]
      ).find((s) => s.id === id)?.fresh_start ?? null;
    expect(await report(195_000)).toEqual({ status: 200, body: { status: "ok" } });
    expect(await state()).toBeNull(); // not let: nothing starts by itself
    await rest("PATCH", `/api/sessions/${id}`, {
      token: T["hum-maintainer"] ?? null,
      body: { fresh_start_at_95: true },
    });
    await report(150_000);
    expect(await state()).toBeNull(); // 75 %
    await report(192_000);
    expect(await state()).toMatchObject({ state: "awaiting_note" });
    const first = await hub.db.freshStart.findFirstOrThrow({
      where: { sessionId: id },
      select: { id: true, requestedBy: true },
    });
    expect(first.requestedBy).toBe("auto");
    await report(196_000);
    expect(await hub.db.freshStart.count({ where: { sessionId: id } })).toBe(1);
    // The ring is the session's own: the reading reached the agent's context like an agent's report.
    const ring = await hub.db.agentContext.findUnique({ where: { agentId: id }, select: { percent: true } });
    expect(ring?.percent).toBe(98);
    // A report naming no live session of this device's person: 404 SESSION_NOT_FOUND.
    const unknown = await rest("POST", "/api/device-api/context", {
      token: host,
      body: { session: "nobody", event: "usage", used: 1, size: 10 },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: "SESSION_NOT_FOUND" } });
  });
});

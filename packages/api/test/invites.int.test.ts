import { createHub, type Hub, type HubOptions, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest/index.ts";
import { ADMIN, BASE, restClient, testHub } from "./helpers.ts";

// Invites and sign-up (issue 29, DESIGN §4c): a project's admins make, list and revoke invite links
// (an expiry, a number of uses); a valid code shows where it leads and lets a signed-in person join,
// or a new person sign up and join in one step; a wrong code tells nothing, an expired, spent or
// revoked one says which. MAITY_SIGNUP says whether people may sign up without one.

const base = await testHub();
const rest = restClient(base);
afterAll(() => base.close());
const P = "/api/projects/maintainer/maity";
const T: Record<string, string> = {};
const as = (who: string) => ({ token: T[who] ?? null });
const variant = (options: HubOptions): Hub => createHub(base.database, options);

/** POST /api/auth/signup over REST from a client address: the status, the body and the session cookie. */
async function signup(hub: Hub, body: unknown, address = "198.51.100.20") {
  const res = await handleRest(
    hub,
    new Request(`${BASE}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-maity-remote": address, origin: BASE },
      body: JSON.stringify(body),
    }),
    { adminToken: ADMIN },
  );
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : null,
    cookie: res.headers.get("set-cookie")?.split(";")[0] ?? null,
  };
}

const invite = async (body: Record<string, unknown> = {}) => {
  const made = await rest("POST", `${P}/invites`, { ...as("hum-maintainer"), body });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { id: string; code: string; path: string; max_uses: number };
};

beforeAll(async () => {
  await seedDemo(base);
  await rest("POST", "/api/admin/humans", {
    token: ADMIN,
    body: { handle: "bob", name: "Bob", password: "bob-password-1" },
  });
  for (const id of ["hum-maintainer", "hum-guest", "hum-bob", "agt-a"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
});

describe("making, listing and revoking invites (members:admin)", () => {
  it("201 with the code and the link's path, shown once; the list never shows a code; others refused", async () => {
    const made = await invite();
    expect(made).toMatchObject({
      max_uses: 10,
      uses: 0,
      status: "valid",
      revoked_at: null,
      created_by: "hum-maintainer",
    });
    expect(made.code).toMatch(/^inv_[A-Za-z0-9_-]{24}$/);
    expect(made.path).toBe(`/invite/${made.code}`);
    const hours = (Date.parse((made as unknown as { expires_at: string }).expires_at) - Date.now()) / 3_600_000;
    expect(Math.round(hours)).toBe(168);
    const list = await rest("GET", `${P}/invites`, as("hum-maintainer"));
    expect(list.body.items[0]).toMatchObject({ id: made.id, status: "valid" });
    expect(JSON.stringify(list.body)).not.toContain(made.code);
    expect((await rest("POST", `${P}/invites`, { ...as("hum-guest"), body: {} })).status).toBe(403);
    expect((await rest("GET", `${P}/invites`, as("hum-bob"))).status).toBe(404);
    expect((await rest("POST", `${P}/invites`, { ...as("agt-a"), body: {} })).status).toBe(403);
    const bad = await rest("POST", `${P}/invites`, {
      ...as("hum-maintainer"),
      body: { max_uses: 0, expires_in_hours: 1.5 },
    });
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(["expires_in_hours", "max_uses"]);
  });
});

describe("what a code says (GET /api/invites/{code})", () => {
  it("a valid code names the project; a wrong one 404 like any other wrong one; expired, spent, revoked say so", async () => {
    const valid = await invite();
    expect(await rest("GET", `/api/invites/${valid.code}`)).toEqual({
      status: 200,
      body: { status: "valid", project: { owner: "maintainer", slug: "maity", name: "Maity" } },
    });
    const wrong = await rest("GET", "/api/invites/inv_wrongwrongwrongwrongwrong");
    expect(wrong.status).toBe(404);
    expect(await rest("GET", "/api/invites/something-else")).toEqual(wrong);
    expect(JSON.stringify(wrong.body)).not.toContain("maity");
    const revoked = await invite();
    await rest("DELETE", `${P}/invites/${revoked.id}`, as("hum-maintainer"));
    expect((await rest("GET", `/api/invites/${revoked.code}`)).body).toEqual({ status: "revoked", project: null });
    const expired = await invite();
    await base.db.invite.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await rest("GET", `/api/invites/${expired.code}`)).body).toEqual({ status: "expired", project: null });
    const spent = await invite({ max_uses: 1 });
    expect((await rest("POST", `/api/invites/${spent.code}/accept`, as("hum-bob"))).status).toBe(200);
    expect((await rest("GET", `/api/invites/${spent.code}`)).body).toEqual({ status: "spent", project: null });
    await rest("DELETE", `${P}/members/hum-bob`, as("hum-maintainer"));
  });
});

describe("joining with a code", () => {
  it("a signed-in person joins; once a member, accepting again spends nothing; a spent code refused by name", async () => {
    const code = (await invite({ max_uses: 2 })).code;
    const joined = await rest("POST", `/api/invites/${code}/accept`, as("hum-bob"));
    expect(joined).toEqual({
      status: 200,
      body: { project: { owner: "maintainer", slug: "maity", name: "Maity" }, joined: true },
    });
    expect((await rest("GET", `${P}/members`, as("hum-bob"))).status).toBe(200);
    const again = await rest("POST", `/api/invites/${code}/accept`, as("hum-bob"));
    expect(again.body.joined).toBe(false);
    const row = await base.db.invite.findFirstOrThrow({
      where: { codeHash: { not: "" } },
      orderBy: { createdAt: "desc" },
    });
    expect(row.uses).toBe(1);
    await rest("DELETE", `${P}/members/hum-bob`, as("hum-maintainer"));
    const revoked = await invite();
    await rest("DELETE", `${P}/invites/${revoked.id}`, as("hum-maintainer"));
    const refused = await rest("POST", `/api/invites/${revoked.code}/accept`, as("hum-bob"));
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe("invite_revoked");
    expect((await rest("POST", `/api/invites/${code}/accept`, as("agt-a"))).status).toBe(403);
  });

  it("a link of 3 uses lets in 3 people however many open it at once (its row's lock)", async () => {
    const code = (await invite({ max_uses: 3 })).code;
    const people = Array.from({ length: 8 }, (_, i) => `rush${i}`);
    for (const handle of people) {
      await rest("POST", "/api/admin/humans", {
        token: ADMIN,
        body: { handle, name: handle, password: "rush-password-1" },
      });
      T[handle] = (
        await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: `hum-${handle}` } })
      ).body.token;
    }
    const answers = await Promise.all(people.map((p) => rest("POST", `/api/invites/${code}/accept`, as(p))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.details.reason === "invite_spent")).toBe(
      true,
    );
  });
});

describe("signing up (POST /api/auth/signup)", () => {
  it("with an invite: a person of their own Bay, signed in, a member of the project — one step", async () => {
    const { code } = await invite();
    const made = await signup(base, { handle: "dora", name: "Dora", password: "dora-password-1", invite: code });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toEqual({
      id: "hum-dora",
      handle: "dora",
      name: "Dora",
      project: { owner: "maintainer", slug: "maity", name: "Maity" },
    });
    expect(made.cookie).toMatch(/^maity_session=/);
    const me = await handleRest(base, new Request(`${BASE}${P}/members`, { headers: { cookie: made.cookie ?? "" } }));
    expect(me.status).toBe(200);
    // Their own Bay: they can make a project of theirs.
    expect((await base.db.human.findUniqueOrThrow({ where: { id: "hum-dora" } })).bayId).toBe("bay-dora");
  });

  it("invite only by default; a wrong or spent invite creates no account; the person's rules hold", async () => {
    const none = await signup(base, { handle: "eve", name: "Eve", password: "eve-password-1" });
    expect(none.status).toBe(403);
    expect(none.body.error.details.reason).toBe("invite_only");
    const wrong = await signup(base, { handle: "eve", name: "Eve", password: "eve-password-1", invite: "inv_nope" });
    expect(wrong.status).toBe(404);
    const spent = await invite({ max_uses: 1 });
    await signup(base, { handle: "fay", name: "Fay", password: "fay-password-1", invite: spent.code });
    const late = await signup(base, { handle: "eve", name: "Eve", password: "eve-password-1", invite: spent.code });
    expect(late.status).toBe(409);
    expect(late.body.error.details.reason).toBe("invite_spent");
    expect(await base.db.human.findUnique({ where: { handle: "eve" } })).toBeNull();
    const { code } = await invite();
    const taken = await signup(base, { handle: "dora", name: "D", password: "dora-password-2", invite: code });
    expect(taken.body.error.details.fields).toEqual({ handle: "taken" });
    const short = await signup(base, { handle: "gus", name: "Gus", password: "short", invite: code });
    expect(Object.keys(short.body.error.details.fields)).toEqual(["password"]);
  });

  it("MAITY_SIGNUP=open: anyone signs up, without a project; the login limit's address budget holds", async () => {
    const open = variant({ signup: "open", login: { perAddress: 2 } });
    const first = await signup(open, { handle: "hal", name: "Hal", password: "hal-password-1" }, "203.0.113.50");
    expect(first.status).toBe(201);
    expect(first.body.project).toBeNull();
    await signup(open, { handle: "ida", name: "Ida", password: "ida-password-1" }, "203.0.113.50");
    const third = await signup(open, { handle: "jon", name: "Jon", password: "jon-password-1" }, "203.0.113.50");
    expect(third.status).toBe(429);
    expect(await base.db.human.findUnique({ where: { handle: "jon" } })).toBeNull();
  });
});

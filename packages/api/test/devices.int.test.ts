import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, restClient, testHub } from "./helpers.ts";

// Device login (issue 30, DESIGN §4e, B-324): `maity login` opens a request, the person approves it
// for Bays of theirs, the computer collects one `bay_u_` credential per Bay, once; people list and
// revoke their devices. The agent and the CLI sides come later in the issue.

const hub = await testHub({ limits: { preauth: 1_000 } });
const rest = restClient(hub);
afterAll(() => hub.close());
const T: Record<string, string> = {};
const as = (who: string) => ({ token: T[who] ?? null });

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["hum-maintainer", "hum-guest", "agt-a"])
    T[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
});

const open = async (label?: string) => {
  const res = await rest("POST", "/api/device-api/login", { body: label === undefined ? {} : { label } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; code: string; approveUrl: string };
};
const poll = (id: string, secret: string) => rest("POST", `/api/device-api/login/${id}/poll`, { body: { secret } });

describe("a device login (DESIGN §4e)", () => {
  it("B-324 opened without a token, approved for two Bays of the person, collected once: a credential per Bay", async () => {
    const login = await open("laptop");
    expect(login).toMatchObject({ id: expect.stringMatching(/^dlg-/), pollIntervalSeconds: 2 });
    expect(login.approveUrl).toMatch(new RegExp(`/device/${login.code}$`));
    expect(await poll(login.id, login.secret)).toEqual({ status: 200, body: { status: "pending" } });

    // guest belongs to its own Bay and to the maintainer's (a member of maintainer/maity).
    const view = await rest("GET", `/api/device/${login.code}`, as("hum-guest"));
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ label: "laptop", status: "pending", code: login.code });
    expect(view.body.bays.map((b: { name: string }) => b.name).sort()).toEqual(["guest", "maintainer"]);
    const ids = view.body.bays.map((b: { id: string }) => b.id);

    const foreign = await rest("POST", `/api/device/${login.code}/approve`, {
      ...as("hum-guest"),
      body: { bays: [...ids, "bay-nobody"] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.fields).toEqual({ bays: "not_yours" });
    expect(await poll(login.id, login.secret)).toEqual({ status: 200, body: { status: "pending" } });

    const approved = await rest("POST", `/api/device/${login.code}/approve`, {
      ...as("hum-guest"),
      body: { bays: ids },
    });
    expect(approved).toEqual({ status: 200, body: { status: "approved" } });
    const again = await rest("POST", `/api/device/${login.code}/approve`, { ...as("hum-guest"), body: { bays: ids } });
    expect(again.status).toBe(409);
    // Decided by guest: another person meets it as missing.
    const other = await rest("GET", `/api/device/${login.code}`, as("hum-maintainer"));
    expect(other).toEqual(await rest("GET", "/api/device/ZZZZ-ZZZZ-ZZZZ", as("hum-maintainer")));
    expect(other.status).toBe(404);

    const collected = await poll(login.id, login.secret);
    expect(collected.status).toBe(200);
    expect(collected.body.status).toBe("approved");
    expect(collected.body.credentials).toHaveLength(2);
    for (const c of collected.body.credentials) {
      expect(c.token).toMatch(/^bay_u_[A-Za-z0-9_-]{43}$/);
      expect(c.baseUrl).toBe("http://127.0.0.1:3000");
      // Each opens exactly its Bay (B-324), as guest, through this device.
      expect(await hub.auth.fromDevice(c.token, true)).toMatchObject({ id: "hum-guest", bay: c.bay });
    }
    // Collected once: the secret is spent, the request answers like none.
    const spent = await poll(login.id, login.secret);
    expect(spent.status).toBe(404);
    expect(spent).toEqual(await poll("dlg-nope", login.secret));
    // Nothing of it works as a person's or an agent's token on their routes (401 like no credential).
    const token = collected.body.credentials[0].token;
    expect((await rest("GET", "/api/me/devices", { token })).status).toBe(401);
    expect((await rest("GET", "/api/projects/maintainer/maity/conversations", { token })).status).toBe(401);
    expect((await rest("GET", "/api/agent-api/me", { token })).status).toBe(401);
  });

  it("a wrong secret answers like an unknown request; denied says denied; expired says expired and cannot be approved", async () => {
    const login = await open();
    expect((await poll(login.id, "wrong")).status).toBe(404);
    expect(await poll(login.id, "wrong")).toEqual(await poll("dlg-nope", "wrong"));
    expect(await rest("POST", `/api/device/${login.code}/deny`, { ...as("hum-maintainer"), body: {} })).toEqual({
      status: 200,
      body: { status: "denied" },
    });
    expect((await poll(login.id, login.secret)).body).toEqual({ status: "denied" });

    const late = await open();
    await hub.db.deviceLogin.update({ where: { id: late.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await poll(late.id, late.secret)).body).toEqual({ status: "expired" });
    const view = await rest("GET", `/api/device/${late.code}`, as("hum-maintainer"));
    expect(view.body.status).toBe("expired");
    const approve = await rest("POST", `/api/device/${late.code}/approve`, {
      ...as("hum-maintainer"),
      body: { bays: ["bay-maintainer"] },
    });
    expect(approve.status).toBe(409);
    expect(approve.body.error.details.reason).toBe("expired");

    // Approved but never collected in time: the secret opens nothing later.
    const idle = await open();
    await rest("POST", `/api/device/${idle.code}/approve`, {
      ...as("hum-maintainer"),
      body: { bays: ["bay-maintainer"] },
    });
    await hub.db.deviceLogin.update({ where: { id: idle.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await poll(idle.id, idle.secret)).body).toEqual({ status: "expired" });
  });

  it("a request someone else decided is missing to anyone else, whatever they try", async () => {
    const login = await open();
    await rest("POST", `/api/device/${login.code}/deny`, { ...as("hum-maintainer"), body: {} });
    const missing = await rest("POST", "/api/device/ZZZZ-ZZZZ-ZZZZ/approve", {
      ...as("hum-guest"),
      body: { bays: ["bay-guest"] },
    });
    expect(missing.status).toBe(404);
    expect(
      await rest("POST", `/api/device/${login.code}/approve`, { ...as("hum-guest"), body: { bays: ["bay-guest"] } }),
    ).toEqual(missing);
    expect(await rest("POST", `/api/device/${login.code}/deny`, { ...as("hum-guest"), body: {} })).toEqual(
      await rest("POST", "/api/device/ZZZZ-ZZZZ-ZZZZ/deny", { ...as("hum-guest"), body: {} }),
    );
  });

  it("people only decide: an agent token 403 humans_only, no credential 401; the code is read case-insensitively", async () => {
    const login = await open("desktop");
    expect((await rest("GET", `/api/device/${login.code}`, as("agt-a"))).body.error.details.reason).toBe("humans_only");
    expect((await rest("GET", `/api/device/${login.code}`)).status).toBe(401);
    expect((await rest("GET", `/api/device/${login.code.toLowerCase()}`, as("hum-maintainer"))).status).toBe(200);
  });
});

describe("devices (DESIGN §4e)", () => {
  it("a person lists their computers with the Bays each opens and revokes one: its credentials stop; another's is missing", async () => {
    const login = await open("work laptop");
    await rest("POST", `/api/device/${login.code}/approve`, {
      ...as("hum-maintainer"),
      body: { bays: ["bay-maintainer"] },
    });
    const [credential] = (await poll(login.id, login.secret)).body.credentials;
    const listed = await rest("GET", "/api/me/devices", as("hum-maintainer"));
    const device = listed.body.items.find((d: { label: string }) => d.label === "work laptop");
    expect(device).toMatchObject({
      id: expect.stringMatching(/^dev-/),
      bays: [{ id: "bay-maintainer", name: "maintainer" }],
      last_used_at: null,
    });
    expect(await hub.auth.fromDevice(credential.token, true)).not.toBeNull();
    expect((await rest("GET", "/api/me/devices", as("hum-maintainer"))).body.items[0].last_used_at).not.toBeNull();
    // guest's list does not hold it, and guest cannot revoke it.
    expect(
      (await rest("GET", "/api/me/devices", as("hum-guest"))).body.items.map((d: { id: string }) => d.id),
    ).not.toContain(device.id);
    const notHers = await rest("DELETE", `/api/me/devices/${device.id}`, as("hum-guest"));
    expect(notHers).toEqual(await rest("DELETE", "/api/me/devices/dev-nope", as("hum-guest")));
    expect(notHers.status).toBe(404);
    expect(await rest("DELETE", `/api/me/devices/${device.id}`, as("hum-maintainer"))).toEqual({
      status: 200,
      body: { id: device.id, revoked: true },
    });
    expect(await hub.auth.fromDevice(credential.token, true)).toBeNull();
    expect(
      (await rest("GET", "/api/me/devices", as("hum-maintainer"))).body.items.map((d: { id: string }) => d.id),
    ).not.toContain(device.id);
  });

  it("B-010 the pre-auth routes spend the client address's budget", async () => {
    const tight = await testHub({ limits: { preauth: 3 } });
    const r = restClient(tight);
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await r("POST", "/api/device-api/login", { body: {} })).status);
      expect(answers).toEqual([201, 201, 201, 429]);
    } finally {
      await tight.close();
    }
  });
});

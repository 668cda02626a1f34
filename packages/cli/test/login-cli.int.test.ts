import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { type ApiServer, startApiServer } from "@maity/api/node";
import { seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHub, trpcBrowser } from "../../api/test/helpers.ts";
import { run, start, tempDir } from "./helpers.ts";

// `maity login` / `maity logout` (issue 30, DESIGN §4e, B-324), the real binary against a real hub on
// 127.0.0.1: a QR code and the approve URL, a progress line, the person approves two Bays in the
// dashboard (tRPC, as the page does), one credential per Bay in device.json (0600 in 0700, never
// printed); logout signs the computer out on the hub and removes the file.

const hub = await testHub({ limits: { preauth: 10_000 } });
let api: ApiServer;
beforeAll(async () => {
  await seedDemo(hub);
  api = await startApiServer(hub, {});
});
afterAll(async () => {
  await api?.close();
  await hub.close();
});
const modeOf = (file: string) => statSync(file).mode & 0o777;

async function signedIn(handle: string, password: string) {
  const browser = trpcBrowser(hub);
  expect((await browser.mutation("auth.login", { handle, password })).status).toBe(200);
  return browser;
}

describe("maity login (DESIGN §4e)", () => {
  it("B-324 shows a QR code and the approve URL, waits, writes one credential per Bay the person chose; logout undoes it", async () => {
    const home = tempDir("login");
    const dir = path.join(home, "cfg");
    const env = { HOME: home, MAITY_CONFIG_DIR: dir };
    const login = start(["login", "--label", "cli laptop", "--url", api.url], env);
    const [, approveUrl, code] = await login.waitFor("stdout", /open (\S+) \(code (\S+)\)/);
    expect(approveUrl).toBe(`${api.url}/device/${code}`);
    expect(login.stdout()).toMatch(/[▄▀█]{10}/);
    await login.waitFor("stderr", /waiting for approval/);
    // guest approves it for both its Bays (its own and the maintainer's, whose project it is in).
    const guest = await signedIn("guest", "guest-demo");
    const view = await guest.query("devices.view", { code });
    const offered = view.body.result?.data as { label: string; status: string; bays: { id: string }[] };
    expect(offered).toMatchObject({ label: "cli laptop", status: "pending" });
    const bays = offered.bays.map((b) => b.id);
    expect((await guest.mutation("devices.approve", { code, bays })).status).toBe(200);
    const done = await login.done;
    expect(done.code, done.stderr).toBe(0);
    const file = path.join(dir, "device.json");
    const device = JSON.parse(readFileSync(file, "utf8"));
    expect(device.baseUrl).toBe(api.url);
    expect(device.credentials.map((c: { bay: { name: string } }) => c.bay.name).sort()).toEqual([
      "guest",
      "maintainer",
    ]);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(dir)).toBe(0o700);
    // Signed in: a second login is refused until logout (the first device would stay live, unseen).
    const twice = await run(["login", "--url", api.url], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("signed in already");
    for (const c of device.credentials) {
      expect(done.stdout + done.stderr).not.toContain(c.token);
      expect(await hub.auth.fromDevice(c.token, true)).toMatchObject({ id: "hum-guest", bay: c.bay });
    }
    expect(done.stdout).toMatch(/^signed in to (guest, maintainer|maintainer, guest) on /m);

    const out = await run(["logout"], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain("signed out of");
    for (const c of device.credentials) expect(await hub.auth.fromDevice(c.token, true)).toBeNull();
    expect(() => statSync(file)).toThrow();
    const again = await run(["logout"], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not signed in");
  });

  it("a refused login writes nothing and says so; --json prints the pending request, then the outcome", async () => {
    const home = tempDir("login-denied");
    const env = { HOME: home, MAITY_CONFIG_DIR: path.join(home, "cfg") };
    const login = start(["login", "--url", api.url, "--json"], env);
    const [line] = await login.waitFor("stdout", /\{.*"status":"pending".*\}/);
    const pending = JSON.parse(line);
    expect(pending).toMatchObject({ status: "pending", approveUrl: expect.stringContaining("/device/") });
    const maintainer = await signedIn("maintainer", "maintainer-demo");
    expect((await maintainer.mutation("devices.deny", { code: pending.code })).status).toBe(200);
    const done = await login.done;
    expect(done.code).toBe(1);
    expect(done.stderr).toContain("refused");
    expect(() => statSync(path.join(home, "cfg", "device.json"))).toThrow();
  });
});

describe("the person's CLI after maity login: sessions and mcp (DESIGN §4e, B-310, B-324)", () => {
  /** guest signs a computer in to both its Bays (its own first); the env of that computer. */
  async function loggedIn(name: string) {
    const home = tempDir(name);
    const env = { HOME: home, MAITY_CONFIG_DIR: path.join(home, "cfg") };
    const login = start(["login", "--url", api.url], env);
    const [, , code] = await login.waitFor("stdout", /open (\S+) \(code (\S+)\)/);
    const guest = await signedIn("guest", "guest-demo");
    const view = await guest.query("devices.view", { code });
    const viewed = view.body.result?.data as { bays: { id: string }[] } | undefined;
    const bays = (viewed?.bays ?? []).map((b) => b.id);
    await guest.mutation("devices.approve", { code, bays });
    expect((await login.done).code).toBe(0);
    return env;
  }

  it("maity mcp without agent credentials serves the session tools on stdio; maity sessions lists the joined session", async () => {
    const env = await loggedIn("device-mcp");
    const none = await run(["sessions"], env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/^Bay guest: no sessions$/m);
    expect(none.stdout).toMatch(/^Bay maintainer: no sessions$/m);

    const server = start(["mcp", "--bay", "guest"], env, { stdin: "open" });
    const send = (frame: object) => server.child.stdin?.write(`${JSON.stringify(frame)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "join_session", arguments: { session: "cli-term", sessions: true } },
    });
    await server.waitFor("stdout", /"id":3/);
    server.child.stdin?.end();
    const done = await server.done;
    const answers = done.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const tools = answers.find((a) => a.id === 2).result.tools as {
      name: string;
      inputSchema: { required?: string[] };
    }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["join_session", "listen_messages"]));
    expect(tools.find((t) => t.name === "send_message")?.inputSchema.required).toContain("session");
    const joined = answers.find((a) => a.id === 3).result;
    expect(joined.content[0].text.split("\n")[0]).toBe('Joined as "cli-term" in Bay "guest" — group "Sessions"');

    const listed = await run(["sessions", "--bay", "guest", "--json"], env);
    const bays = JSON.parse(listed.stdout).bays as { bay: { name: string }; sessions: { name: string }[] }[];
    expect(bays[0]?.sessions.map((s) => s.name)).toEqual(["cli-term"]);
    const unknown = await run(["mcp", "--bay", "nowhere"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not signed in to Bay "nowhere" (it is to: guest, maintainer)');
    // The tokens never reach stdout or stderr.
    const device = JSON.parse(readFileSync(path.join(env.MAITY_CONFIG_DIR, "device.json"), "utf8"));
    for (const c of device.credentials) expect(done.stdout + done.stderr + listed.stdout).not.toContain(c.token);
  });

  it("fault: the CLI killed while it waits for approval writes nothing; the request opens nothing later", async () => {
    const home = tempDir("login-killed");
    const env = { HOME: home, MAITY_CONFIG_DIR: path.join(home, "cfg") };
    const login = start(["login", "--url", api.url, "--json"], env);
    const [line] = await login.waitFor("stdout", /\{.*"status":"pending".*\}/);
    const pending = JSON.parse(line) as { code: string };
    login.child.kill("SIGKILL");
    await login.done;
    expect(() => statSync(path.join(env.MAITY_CONFIG_DIR, "device.json"))).toThrow();
    // The person approves afterwards: nothing is collected, so no device appears and nothing is opened.
    const guest = await signedIn("guest", "guest-demo");
    const before = (await guest.query("devices.list", {})).body.result?.data as { items: unknown[] };
    const view = await guest.query("devices.view", { code: pending.code });
    const viewed = view.body.result?.data as { bays: { id: string }[] } | undefined;
    const bays = (viewed?.bays ?? []).map((b) => b.id);
    await guest.mutation("devices.approve", { code: pending.code, bays });
    const after = (await guest.query("devices.list", {})).body.result?.data as { items: unknown[] };
    expect(after.items.length).toBe(before.items.length);
    // A fresh login on the same computer works.
    const again = start(["login", "--url", api.url], env);
    await again.waitFor("stdout", /open (\S+) \(code (\S+)\)/);
    again.child.kill("SIGKILL");
    await again.done;
  });
});

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

import { describe, expect, it } from "vitest";
import { connect, InsecureUrlError, pair, sendsInClear } from "../src/index.ts";

// B-161: credentials never cross the network in clear text — plain http only to this machine.
describe("B-161 plain http only to this machine", () => {
  it.each([
    ["http://127.0.0.1:3000", false],
    ["http://127.8.9.10", false],
    ["http://localhost:3000", false],
    ["http://hub.localhost", false],
    ["http://[::1]:3000", false],
    ["https://hub.example.org", false],
    ["http://hub.example.org", true],
    ["http://10.0.0.5:3000", true],
    ["http://127.0.0.1.example.org", true],
    ["ws://hub.example.org", true],
  ])("B-161 %s sends in clear: %s", (url, clear) => {
    expect(sendsInClear(url)).toBe(clear);
  });

  it("B-161 refuses before sending anything, unless the caller allows it or brings its own fetch", async () => {
    let sent = 0;
    const fetchCounting: typeof fetch = async () => {
      sent += 1;
      return Response.json({ id: "agt-a" });
    };
    const remote = connect({ baseUrl: "http://hub.example.org", token: "bay_x" });
    await expect(remote.me()).rejects.toBeInstanceOf(InsecureUrlError);
    await expect(pair("http://hub.example.org", "K7QM-2XHP-9RTA")).rejects.toThrow(/plain http to hub.example.org/);
    const events = remote.events();
    await expect(events.next()).rejects.toBeInstanceOf(InsecureUrlError);
    expect(await connect({ baseUrl: "http://hub.example.org", token: "bay_x", fetch: fetchCounting }).me()).toEqual({
      id: "agt-a",
    });
    expect(sent).toBe(1);
  });
});

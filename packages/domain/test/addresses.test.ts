import { describe, expect, it } from "vitest";
import {
  addressRefusal,
  allowsAddress,
  allowsName,
  classifyAddress,
  parseAllowList,
  parseIp,
  webhookInput,
} from "../src/index.ts";

// Webhook SSRF guard: which addresses the hub may connect to for a webhook, and the operator's exceptions.

const kindOf = (text: string) => {
  const ip = parseIp(text);
  if (!ip) throw new Error(`${text} is no IP address`);
  return classifyAddress(ip);
};

describe("webhook SSRF: classifyAddress: only public unicast is reachable", () => {
  it.each([
    // IPv4
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["203.0.113.9", "reserved"],
    // IPv6
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["fd00::1", "unique-local"],
    ["fc00::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["100::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["::7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::10.1.2.3", "private"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:1::1", "private"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
    ["4000::1", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(kindOf(address)).toBe(kind);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "93.184.215.14",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.1",
    "169.253.0.1",
    "223.255.255.255",
    "2606:4700::1111",
    "2a00:1450::1",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])("%s is public", (address) => {
    expect(kindOf(address)).toBe("public");
    expect(addressRefusal(address)).toBeNull();
  });

  it("parses the forms a URL or a resolver gives, and nothing else", () => {
    expect(parseIp("127.0.0.1")).toEqual({ family: 4, bytes: [127, 0, 0, 1] });
    expect(parseIp("::ffff:7f00:1")?.bytes).toEqual(parseIp("::ffff:127.0.0.1")?.bytes);
    expect(parseIp("1:2:3:4:5:6:7:8")?.family).toBe(6);
    // Not IP literals: names (a URL has already turned 127.1 and 2130706433 into 127.0.0.1).
    for (const text of [
      "localhost",
      "127.1",
      "2130706433",
      "0x7f000001",
      "127.0.0.256",
      "01.2.3.4",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "::g",
      "1:2:3:4:5:6:7:8::",
      "",
    ])
      expect(parseIp(text), text).toBeNull();
    // Not an address at all: refused.
    expect(addressRefusal("localhost")).toBe("reserved");
  });

  it("WHATWG URL has normalised the numeric host forms the probe used before they are classified", () => {
    for (const host of ["2130706433", "0x7f000001", "127.1", "0177.0.0.1"])
      expect(kindOf(new URL(`http://${host}/`).hostname), host).toBe("loopback");
    expect(new URL("http://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
    expect(kindOf(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe("loopback");
  });
});

describe("webhook SSRF: the operator's allow list (MAITY_WEBHOOK_ALLOW)", () => {
  const { list, invalid } = parseAllowList([
    "127.0.0.1",
    " localhost ",
    "Dev.Example.",
    "10.0.0.0/8",
    "[::1]",
    "fd00::/8",
    "::ffff:192.168.0.0/112",
    "",
  ]);

  it("keeps names, IP literals and CIDR ranges", () => {
    expect(invalid).toEqual([]);
    expect([...list.names]).toEqual(["localhost", "dev.example"]);
    expect(list.nets.length).toBe(5);
  });

  it.each([
    ["127.0.0.1", true],
    ["::ffff:127.0.0.1", true],
    ["127.0.0.2", false],
    ["10.200.0.1", true],
    ["172.16.0.1", false],
    ["::1", true],
    ["fd12::1", true],
    ["fe80::1", false],
    ["192.168.3.4", true],
    ["169.254.169.254", false],
  ])("%s allowed: %s", (address, allowed) => {
    const ip = parseIp(address);
    expect(ip && allowsAddress(list, ip)).toBe(allowed);
    expect(addressRefusal(address, list) === null).toBe(allowed);
  });

  it("matches names without case or the trailing dot", () => {
    expect(allowsName(list, "LOCALHOST")).toBe(true);
    expect(allowsName(list, "dev.example")).toBe(true);
    expect(allowsName(list, "localhost.")).toBe(true);
    expect(allowsName(list, "evil.localhost")).toBe(false);
  });

  it("names what is neither", () => {
    expect(
      parseAllowList(["10.0.0.0/33", "1.2.3.4/8/9", "::1/129", "a b", "host/8", "10.0.0.0/x", "http://x"]).invalid,
    ).toEqual(["10.0.0.0/33", "1.2.3.4/8/9", "::1/129", "a b", "host/8", "10.0.0.0/x", "http://x"]);
  });
});

describe("webhook SSRF: webhookInput: no credentials in the URL", () => {
  it.each(["http://user:pw@127.0.0.1/", "https://user@hooks.example.com/x", "https://:pw@hooks.example.com/x"])(
    "%s is refused (field url)",
    (url) => {
      const result = webhookInput.safeParse({ url });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
        ["url", "no user name or password"],
      ]);
    },
  );
  it("a URL without them passes", () => {
    expect(webhookInput.safeParse({ url: "https://hooks.example.com/x?a=1" }).success).toBe(true);
  });
});

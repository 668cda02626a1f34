// Webhook SSRF guard: which addresses the hub may connect to on an agent's behalf. A webhook
// URL is the agent's, so the hub must not be made to POST into its own network: only public unicast
// addresses are reachable, unless the operator allows more (MAITY_WEBHOOK_ALLOW, local development).
// Pure: the hub resolves names and asks here about every address; WHATWG `new URL()` has already
// turned `2130706433`, `0x7f000001` and `127.1` into 127.0.0.1, so only canonical forms are parsed.

/** An IP address as bytes: 4 for IPv4, 16 for IPv6. */
export type IpAddress = { family: 4 | 6; bytes: number[] };

export type AddressKind =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "broadcast"
  | "reserved";

function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    bytes.push(n);
  }
  return bytes;
}

/** The 16-bit groups of one side of `::`; a dotted IPv4 only as the last item of the last side. */
function groupsOf(part: string, last: boolean): number[] | null {
  if (part === "") return [];
  const items = part.split(":");
  const groups: number[] = [];
  for (const [i, item] of items.entries()) {
    if (last && i === items.length - 1 && item.includes(".")) {
      const v4 = parseIpv4(item);
      if (!v4) return null;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else if (/^[0-9a-f]{1,4}$/i.test(item)) groups.push(Number.parseInt(item, 16));
    else return null;
  }
  return groups;
}

function parseIpv6(text: string): number[] | null {
  // A resolver may answer a link-local address with its zone (`fe80::1%eth0`): the zone is no part of it.
  const address = text.split("%")[0] ?? "";
  const sides = address.split("::");
  if (sides.length > 2) return null;
  const head = groupsOf(sides[0] ?? "", sides.length === 1);
  const tail = sides.length === 2 ? groupsOf(sides[1] ?? "", true) : [];
  if (!head || !tail) return null;
  let groups: number[];
  if (sides.length === 2) {
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return null;
    groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  } else groups = head;
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** An IP literal (dotted IPv4, IPv6 with or without brackets), or null for anything else (a host name). */
export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = bare.includes(":") ? parseIpv6(bare) : null;
  return v6 ? { family: 6, bytes: v6 } : null;
}

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

// IANA's special-purpose registries; the first match wins (broadcast before 240/4).
const V4: [number[], number, AddressKind][] = [
  [[0], 8, "unspecified"],
  [[10], 8, "private"],
  [[100, 64], 10, "shared"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"],
  [[192, 0, 2], 24, "reserved"],
  [[192, 88, 99], 24, "reserved"],
  [[192, 168], 16, "private"],
  [[198, 18], 15, "reserved"],
  [[198, 51, 100], 24, "reserved"],
  [[203, 0, 113], 24, "reserved"],
  [[224], 4, "multicast"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[240], 4, "reserved"],
];

const V6: [number[], number, AddressKind][] = [
  [[0x01], 64, "reserved"], // 100::/64 discard
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, "private"], // NAT64 for local use
  [[0x20, 0x01, 0x0d, 0xb8], 32, "reserved"], // documentation
  [[0x20, 0x01, 0x00, 0x00], 32, "reserved"], // Teredo: reaches an IPv4 address of its own choice
  [[0x20, 0x01, 0x00, 0x10], 28, "reserved"], // ORCHID
  [[0xfc], 7, "unique-local"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "reserved"], // site-local, deprecated
  [[0xff], 8, "multicast"],
];

function classifyV4(bytes: readonly number[]): AddressKind {
  for (const [prefix, bits, kind] of V4) if (inPrefix(bytes, prefix, bits)) return kind;
  return "public";
}

/** The IPv4 address an IPv6 one carries: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64, 6to4. */
function embeddedV4(bytes: readonly number[]): number[] | null {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12)) return bytes.slice(12);
  if (inPrefix(bytes, [0x00, 0x64, 0xff, 0x9b], 96)) return bytes.slice(12);
  if (inPrefix(bytes, [0x20, 0x02], 16)) return bytes.slice(2, 6);
  return null;
}

/** What kind of address this is; only "public" may be connected to without the operator's leave. */
export function classifyAddress(address: IpAddress): AddressKind {
  if (address.family === 4) return classifyV4(address.bytes);
  const { bytes } = address;
  if (bytes.every((b) => b === 0)) return "unspecified";
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return "loopback";
  const v4 = embeddedV4(bytes);
  if (v4) return classifyV4(v4);
  for (const [prefix, bits, kind] of V6) if (inPrefix(bytes, prefix, bits)) return kind;
  // Global unicast is 2000::/3; the rest is unassigned.
  return inPrefix(bytes, [0x20], 3) ? "public" : "reserved";
}

/** An IPv4-mapped IPv6 address as its IPv4 address, so an allowed 127.0.0.1 matches ::ffff:127.0.0.1. */
function unmapped(address: IpAddress): IpAddress {
  const b = address.bytes;
  const mapped = address.family === 6 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped ? { family: 4, bytes: b.slice(12) } : address;
}

/** The operator's exceptions: host names (any address they resolve to), IP literals and CIDR ranges. */
export interface AddressAllowList {
  names: ReadonlySet<string>;
  nets: readonly { address: IpAddress; bits: number }[];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const nameKey = (name: string): string => name.toLowerCase().replace(/\.$/, "");

/** Allow-list entries (`localhost`, `127.0.0.1`, `[::1]`, `10.0.0.0/8`, `fd00::/8`); `invalid` names the rest. */
export function parseAllowList(entries: readonly string[]): { list: AddressAllowList; invalid: string[] } {
  const names = new Set<string>();
  const nets: { address: IpAddress; bits: number }[] = [];
  const invalid: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const [host = "", bitsText, extra] = entry.split("/");
    const address = parseIp(host);
    if (address) {
      const max = address.family === 4 ? 32 : 128;
      const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1;
      if (extra !== undefined || bits < 0 || bits > max) {
        invalid.push(entry);
        continue;
      }
      // A mapped range (::ffff:10.0.0.0/104) is kept as the IPv4 range it covers.
      const plain = unmapped(address);
      nets.push({ address: plain, bits: plain.family === address.family ? bits : Math.max(0, bits - 96) });
    } else if (bitsText === undefined && HOST_NAME.test(nameKey(entry))) names.add(nameKey(entry));
    else invalid.push(entry);
  }
  return { list: { names, nets }, invalid };
}

export const EMPTY_ALLOW_LIST: AddressAllowList = { names: new Set(), nets: [] };

/** Is this host name on the operator's list (then whatever it resolves to is reachable)? */
export const allowsName = (list: AddressAllowList, host: string): boolean => list.names.has(nameKey(host));

/** Is this address inside one of the operator's IP literals or ranges? */
export function allowsAddress(list: AddressAllowList, address: IpAddress): boolean {
  const a = unmapped(address);
  return list.nets.some((net) => net.address.family === a.family && inPrefix(a.bytes, net.address.bytes, net.bits));
}

/**
 * Why the hub may not connect to this address (its kind), or null when it may: a
 * public address, or one the operator allowed. Not an IP address at all is refused as "reserved".
 */
export function addressRefusal(address: string, list: AddressAllowList = EMPTY_ALLOW_LIST): AddressKind | null {
  const ip = parseIp(address);
  if (!ip) return "reserved";
  if (allowsAddress(list, ip)) return null;
  const kind = classifyAddress(ip);
  return kind === "public" ? null : kind;
}

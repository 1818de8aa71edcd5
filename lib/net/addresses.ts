/**
 * Which IP addresses a server-side fetch must not reach: loopback, private, link-local, carrier-grade NAT, multicast,
 * reserved and unspecified ranges of IPv4 and IPv6, and IPv4 addresses carried inside IPv6 ones (mapped, translated,
 * NAT64, 6to4), judged by the address they carry.
 */
import net from "node:net";

export type BlockedAddressReason =
  | "loopback_address"
  | "private_address"
  | "link_local_address"
  | "unspecified_address"
  | "carrier_grade_nat_address"
  | "multicast_address"
  | "reserved_address"
  | "invalid_address";

export interface Ip {
  version: 4 | 6;
  bytes: Uint8Array;
}

export interface Cidr extends Ip {
  prefix: number;
}

export function parseIp(input: string): Ip | null {
  const address = input.replace(/%.*$/, "");
  const version = net.isIP(address);
  if (version === 4) return { version, bytes: Uint8Array.from(address.split(".").map(Number)) };
  if (version !== 6) return null;

  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    tail.push(...dotted[1].split(".").map(Number));
    text = text.slice(0, -dotted[1].length) + "0:0";
  }
  const [head = "", rest] = text.split("::");
  const groupsOf = (part: string) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  if (tail.length) bytes.set(tail, 12);
  return { version: 6, bytes };
}

export function cidr(text: string): Cidr {
  const [address = "", prefix = ""] = text.split("/");
  const ip = parseIp(address);
  const bits = Number(prefix);
  if (!ip || !/^\d+$/.test(prefix) || bits > ip.bytes.length * 8) throw new Error(`Invalid CIDR range "${text}"`);
  return { ...ip, prefix: bits };
}

export function inCidr(ip: Ip, range: Cidr): boolean {
  if (ip.version !== range.version) return false;
  for (let bit = 0; bit < range.prefix; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((ip.bytes[byte] ?? 0) & mask) !== ((range.bytes[byte] ?? 0) & mask)) return false;
  }
  return true;
}

const ipv4Blocks: [Cidr, BlockedAddressReason][] = (
  [
    ["0.0.0.0/8", "unspecified_address"],
    ["10.0.0.0/8", "private_address"],
    ["100.64.0.0/10", "carrier_grade_nat_address"],
    ["127.0.0.0/8", "loopback_address"],
    ["169.254.0.0/16", "link_local_address"],
    ["172.16.0.0/12", "private_address"],
    ["192.0.0.0/24", "reserved_address"],
    ["192.0.2.0/24", "reserved_address"],
    ["192.88.99.0/24", "reserved_address"],
    ["192.168.0.0/16", "private_address"],
    ["198.18.0.0/15", "reserved_address"],
    ["198.51.100.0/24", "reserved_address"],
    ["203.0.113.0/24", "reserved_address"],
    ["224.0.0.0/4", "multicast_address"],
    ["240.0.0.0/4", "reserved_address"],
  ] as const
).map(([range, reason]) => [cidr(range), reason]);

const ipv6Blocks: [Cidr, BlockedAddressReason][] = (
  [
    ["::1/128", "loopback_address"],
    ["::/128", "unspecified_address"],
    ["64:ff9b:1::/48", "private_address"],
    ["100::/64", "reserved_address"],
    ["2001::/32", "reserved_address"],
    ["2001:db8::/32", "reserved_address"],
    ["3fff::/20", "reserved_address"],
    ["fc00::/7", "private_address"],
    ["fec0::/10", "private_address"],
    ["fe80::/10", "link_local_address"],
    ["ff00::/8", "multicast_address"],
  ] as const
).map(([range, reason]) => [cidr(range), reason]);

const globalUnicast = cidr("2000::/3");

/** IPv6 forms that carry an IPv4 address, and where it sits: a check must look through them. */
const ipv4Carriers: [Cidr, number][] = [
  [cidr("::ffff:0:0/96"), 12], // IPv4-mapped
  [cidr("::ffff:0:0:0/96"), 12], // IPv4-translated (SIIT)
  [cidr("64:ff9b::/96"), 12], // NAT64
  [cidr("::/96"), 12], // IPv4-compatible (deprecated)
  [cidr("2002::/16"), 2], // 6to4
];

export function embeddedIpv4(ip: Ip): Ip | null {
  if (ip.version !== 6) return null;
  const carrier = ipv4Carriers.find(([range]) => inCidr(ip, range));
  return carrier ? { version: 4, bytes: ip.bytes.slice(carrier[1], carrier[1] + 4) } : null;
}

function classify(ip: Ip): BlockedAddressReason | null {
  if (ip.version === 4) return ipv4Blocks.find(([range]) => inCidr(ip, range))?.[1] ?? null;
  const own = ipv6Blocks.find(([range]) => inCidr(ip, range));
  if (own) return own[1];
  const v4 = embeddedIpv4(ip);
  if (v4) return classify(v4);
  return inCidr(ip, globalUnicast) ? null : "reserved_address";
}

/**
 * Why an address must not be fetched from (`"private_address"`, …), or null
 * for a public one. Anything that is not an IP address is refused.
 */
export function isBlockedAddress(ip: string): BlockedAddressReason | null {
  const parsed = parseIp(ip);
  return parsed ? classify(parsed) : "invalid_address";
}

const reasonText: Record<BlockedAddressReason, string> = {
  loopback_address: "a loopback address",
  private_address: "a private address",
  link_local_address: "a link-local address",
  unspecified_address: "an unspecified address",
  carrier_grade_nat_address: "a carrier-grade NAT address",
  multicast_address: "a multicast address",
  reserved_address: "a reserved address",
  invalid_address: "not a valid IP address",
};

const metadataAddresses = new Set(["169.254.169.254", "fd00:ec2::254"]);

export function describeAddress(address: string, reason: BlockedAddressReason): string {
  const extra = metadataAddresses.has(address.toLowerCase()) ? " (the cloud metadata service)" : "";
  return `${reasonText[reason]}${extra}`;
}

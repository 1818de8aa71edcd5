import { describe, expect, it } from "vitest";
import { isBlockedAddress } from "../../lib/net/addresses";

describe("isBlockedAddress", () => {
  it.each([
    ["127.0.0.1", "loopback_address"],
    ["127.255.255.254", "loopback_address"],
    ["::1", "loopback_address"],
    ["0:0:0:0:0:0:0:1", "loopback_address"],
    ["10.0.0.1", "private_address"],
    ["10.255.255.255", "private_address"],
    ["172.16.0.1", "private_address"],
    ["172.31.255.255", "private_address"],
    ["192.168.0.1", "private_address"],
    ["192.168.255.255", "private_address"],
    ["fc00::1", "private_address"],
    ["fd12:3456:789a::1", "private_address"],
    ["fd00:ec2::254", "private_address"],
    ["fec0::1", "private_address"],
    ["169.254.169.254", "link_local_address"],
    ["169.254.0.1", "link_local_address"],
    ["fe80::1", "link_local_address"],
    ["fe80::1%eth0", "link_local_address"],
    ["febf:ffff::1", "link_local_address"],
    ["0.0.0.0", "unspecified_address"],
    ["0.1.2.3", "unspecified_address"],
    ["::", "unspecified_address"],
    ["100.64.0.1", "carrier_grade_nat_address"],
    ["100.100.100.200", "carrier_grade_nat_address"],
    ["100.127.255.255", "carrier_grade_nat_address"],
    ["224.0.0.1", "multicast_address"],
    ["239.255.255.250", "multicast_address"],
    ["ff02::1", "multicast_address"],
    ["240.0.0.1", "reserved_address"],
    ["255.255.255.255", "reserved_address"],
    ["192.0.2.10", "reserved_address"],
    ["198.18.0.1", "reserved_address"],
    ["2001:db8::1", "reserved_address"],
    ["2001::1", "reserved_address"],
    ["::ffff:127.0.0.1", "loopback_address"],
    ["::ffff:7f00:1", "loopback_address"],
    ["::FFFF:7F00:0001", "loopback_address"],
    ["::ffff:10.0.0.1", "private_address"],
    ["::ffff:192.168.1.1", "private_address"],
    ["::ffff:a9fe:a9fe", "link_local_address"],
    ["::ffff:0.0.0.0", "unspecified_address"],
    ["::127.0.0.1", "loopback_address"],
    ["::7f00:1", "loopback_address"],
    ["::ffff:0:7f00:1", "loopback_address"],
    ["64:ff9b::a00:1", "private_address"],
    ["64:ff9b::127.0.0.1", "loopback_address"],
    ["2002:c0a8:101::1", "private_address"],
    ["2002:a9fe:a9fe::", "link_local_address"],
  ])("refuses %s as %s", (address, reason) => {
    expect(isBlockedAddress(address)).toBe(reason);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "11.0.0.1",
    "9.255.255.255",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.1",
    "169.253.255.255",
    "169.255.0.1",
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "192.169.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBeNull();
  });

  it.each(["localhost", "", "127.1", "2130706433", "0x7f.0.0.1", "1.2.3.256", "010.0.0.1", "example.com", "::ffff::1::"])(
    "refuses %j as not an address",
    (input) => {
      expect(isBlockedAddress(input)).toBe("invalid_address");
    },
  );
});

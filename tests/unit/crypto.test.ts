import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "../../lib/crypto";

const key = crypto.randomBytes(32);

describe("credential encryption", () => {
  it("decrypts what it encrypted, and the ciphertext does not contain the secret", () => {
    const sealed = encryptSecret("xoxb-very-secret-token", key);
    expect(sealed).not.toContain("xoxb");
    expect(decryptSecret(sealed, key)).toBe("xoxb-very-secret-token");
  });

  it("uses a fresh nonce each time", () => {
    expect(encryptSecret("same", key)).not.toBe(encryptSecret("same", key));
  });

  it("refuses a wrong key and a changed byte", () => {
    const sealed = encryptSecret("token", key);
    expect(() => decryptSecret(sealed, crypto.randomBytes(32))).toThrow();
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString("base64url");
    expect(() => decryptSecret(parts.join("."), key)).toThrow();
    expect(() => decryptSecret("plain-text", key)).toThrow(/format/);
  });
});

import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createKeyEncryptionKey, loadOrCreateKeyFile, parseMasterKey } from "../../src/crypto/key-encryption.js";

describe("the key-encryption key", () => {
  const kek = createKeyEncryptionKey(randomBytes(32));
  const secret = new TextEncoder().encode("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");

  it("seals into a versioned form without the plaintext and opens it again", () => {
    const sealed = kek.seal(secret, "wallet:1");
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain("abandon");
    expect(Buffer.from(sealed.slice(3), "base64").includes(Buffer.from(secret))).toBe(false);
    expect(kek.open(sealed, "wallet:1")).toEqual(secret);
  });

  it("refuses to open under another context or another key", () => {
    const sealed = kek.seal(secret, "wallet:1");
    expect(() => kek.open(sealed, "wallet:2")).toThrow(/could not be opened/);
    expect(() => createKeyEncryptionKey(randomBytes(32)).open(sealed, "wallet:1")).toThrow(/could not be opened/);
  });

  it("accepts a master key as 64 hex characters or base64 of 32 bytes, and nothing else", () => {
    const key = randomBytes(32);
    expect(parseMasterKey(key.toString("hex"))).toEqual(key);
    expect(parseMasterKey(key.toString("base64"))).toEqual(key);
    expect(() => parseMasterKey("too short")).toThrow(/32 bytes/);
  });

  it("keeps the key of a store held in memory in memory too, never writing a key file", () => {
    const before = process.cwd();
    const folder = mkdtempSync(join(tmpdir(), "strongroom-kek-"));
    process.chdir(folder);
    try {
      const key = loadOrCreateKeyFile("memory://");
      expect(key).toHaveLength(32);
      expect(loadOrCreateKeyFile("memory://")).not.toEqual(key);
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      process.chdir(before);
    }
  });

  it("creates the key file in a data directory once and reads it back", () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "strongroom-kek-")), "data");
    const key = loadOrCreateKeyFile(dataDir);
    expect(readdirSync(dataDir)).toEqual(["master.key"]);
    expect(loadOrCreateKeyFile(dataDir)).toEqual(key);
  });
});

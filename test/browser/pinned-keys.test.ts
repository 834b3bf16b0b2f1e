import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PINNED_KEYS_MODULE, resolveKeys, rewritePinnedKeys } from "../../src/bundler/pinned-keys.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const cryptoDist = join(dirname(createRequire(import.meta.url).resolve("@turnkey/crypto")), "constants");
const HOSTED = ["PRODUCTION_SIGNER_SIGN_PUBLIC_KEY", "PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY", "PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY"];

describe("the bundler plugins' rewrite of @turnkey/crypto's pinned keys (no browser needed)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it("reads the keys from the server's discovery endpoint and puts them in place of every pinned signer and encryption key", async () => {
    const keys = await resolveKeys({ serverUrl: server.url });
    expect(keys.signerPublicKey).toBe(server.services.signer.publicKeyHex);
    for (const file of [`${cryptoDist}.mjs`, `${cryptoDist}.js`]) {
      expect(PINNED_KEYS_MODULE.test(file)).toBe(true);
      const original = readFileSync(file, "utf8");
      const rewritten = rewritePinnedKeys(original, keys);
      for (const constant of HOSTED) {
        const hosted = new RegExp(`${constant} = "([0-9a-f]+)"`).exec(original)![1]!;
        expect(rewritten).not.toContain(hosted);
        expect(rewritten).toContain(`${constant} = "${keys.signerPublicKey}"`);
      }
      expect(rewritten).toContain(`PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY = "${keys.encryptionPublicKey}"`);
    }
  });

  it("fails the build when a pinned constant is no longer where it was, and refuses keys that are not P-256 points in hex", async () => {
    const keys = await resolveKeys({ serverUrl: server.url });
    expect(() => rewritePinnedKeys('const PRODUCTION_SIGNER_SIGN_PUBLIC_KEY = "04ab";', keys)).toThrow(
      /PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY not found/,
    );
    await expect(resolveKeys({ signerPublicKey: "04zz", encryptionPublicKey: keys.encryptionPublicKey })).rejects.toThrow(
      /signerPublicKey must be an uncompressed P-256 public key/,
    );
    expect(PINNED_KEYS_MODULE.test("/app/node_modules/@turnkey/core/dist/index.mjs")).toBe(false);
  });
});

import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { generateP256KeyPair, toDerSignature } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { WalletStamper, WalletType } from "@turnkey/wallet-stamper";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const stampHeader = (stamp: object) => ({ "X-Stamp": Buffer.from(JSON.stringify(stamp)).toString("base64url") });

describe("X-Stamp verification over the exact request bytes", () => {
  let server: TestServer;
  const k1Secret = secp256k1.utils.randomSecretKey();
  const k1Public = bytesToHex(secp256k1.getPublicKey(k1Secret, true));
  const edSecret = ed25519.utils.randomSecretKey();
  const edPublic = bytesToHex(ed25519.getPublicKey(edSecret));

  const whoamiBody = () => JSON.stringify({ organizationId: server.root.organizationId });
  const whoami = (body: string, headers: Record<string, string>) => post(`${server.url}/public/v1/query/whoami`, body, headers);
  const activityCount = async () =>
    Number((await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM activities"))[0]!.n);
  const root = () => ({ publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! });

  beforeAll(async () => {
    server = await startTestServer();
    await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [
        { apiKeyName: "k1", publicKey: k1Public, curveType: "API_KEY_CURVE_SECP256K1" },
        { apiKeyName: "ed", publicKey: edPublic, curveType: "API_KEY_CURVE_ED25519" },
      ],
    });
  });
  afterAll(async () => server.close());

  it("accepts SIGNATURE_SCHEME_TK_API_SECP256K1 (DER ECDSA over sha256)", async () => {
    const body = whoamiBody();
    const signature = bytesToHex(secp256k1.sign(sha256(Buffer.from(body)), k1Secret, { prehash: false, format: "der" }));
    const { status, json } = await whoami(
      body,
      stampHeader({ publicKey: k1Public, scheme: "SIGNATURE_SCHEME_TK_API_SECP256K1", signature }),
    );
    expect(status).toBe(200);
    expect(json.userId).toBe(server.root.userId);
  });

  it("accepts the WalletStamper's EIP-191 signatures whose r or s starts with a zero byte (kept by @turnkey/crypto's toDerSignature)", async () => {
    // The same query with trailing spaces is another body to sign: look for signatures with a leading zero in r, then in s.
    for (const half of ["r", "s"] as const) {
      let body = whoamiBody();
      let compact = new Uint8Array();
      for (;;) {
        const prefixed = Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`), Buffer.from(body)]);
        compact = secp256k1.sign(keccak_256(prefixed), k1Secret, { prehash: false, format: "compact" });
        if (compact[half === "r" ? 0 : 32] === 0 && compact[half === "r" ? 1 : 33]! < 0x80) break;
        body += " ";
      }
      const signature = toDerSignature(bytesToHex(compact));
      // The zero byte is kept: not minimal DER, which a strict parser refuses.
      expect(() => secp256k1.Signature.fromBytes(hexToBytes(signature), "der")).toThrow();
      const { status, json } = await whoami(
        body,
        stampHeader({ publicKey: k1Public, scheme: "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191", signature }),
      );
      expect(status).toBe(200);
      expect(json.userId).toBe(server.root.userId);
    }
  });

  it("accepts SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191 from the unchanged WalletStamper with a viem account", async () => {
    const account = privateKeyToAccount(`0x${bytesToHex(k1Secret)}`);
    const wallet = {
      type: WalletType.Ethereum,
      signMessage: (message: string) => account.signMessage({ message }),
      getPublicKey: async () => k1Public,
    };
    const client = new TurnkeyClient({ baseUrl: server.url }, new WalletStamper(wallet as never));
    expect((await client.getWhoami({ organizationId: server.root.organizationId })).userId).toBe(server.root.userId);
  });

  it("accepts SIGNATURE_SCHEME_TK_API_ED25519 from the unchanged WalletStamper with a Solana-style wallet", async () => {
    const wallet = {
      type: WalletType.Solana,
      signMessage: async (message: string) => bytesToHex(ed25519.sign(new TextEncoder().encode(message), edSecret)),
      getPublicKey: async () => edPublic,
    };
    const client = new TurnkeyClient({ baseUrl: server.url }, new WalletStamper(wallet as never));
    const { activity } = await client.createUserTag({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: String(Date.now()),
      organizationId: server.root.organizationId,
      parameters: { userTagName: "stamped by ed25519", userIds: [] },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.votes[0]).toMatchObject({ publicKey: edPublic, scheme: "SIGNATURE_SCHEME_TK_API_ED25519" });
  });

  const refusals: Array<[string, () => Promise<{ body: string; headers: Record<string, string> }>, RegExp]> = [
    ["no stamp", async () => ({ body: whoamiBody(), headers: {} }), /without a stamp/],
    ["a stamp that is not base64url JSON", async () => ({ body: whoamiBody(), headers: { "X-Stamp": "%%%" } }), /malformed X-Stamp/],
    [
      "a stamp missing its signature",
      async () => ({ body: whoamiBody(), headers: stampHeader({ publicKey: root().publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256" }) }),
      /signature/,
    ],
    [
      "an unknown scheme",
      async () => ({
        body: whoamiBody(),
        headers: stampHeader({ publicKey: root().publicKey, scheme: "SIGNATURE_SCHEME_NOPE", signature: "00" }),
      }),
      /unsupported stamp scheme/,
    ],
    [
      "a tampered body",
      async () => {
        const body = whoamiBody();
        return { body: body.replace("}", " }"), headers: { "X-Stamp": p256Stamp(body, root().publicKey, root().privateKey) } };
      },
      /could not verify api key signature/,
    ],
    [
      "a signature by another key than the one named",
      async () => {
        const other = generateP256KeyPair();
        const body = whoamiBody();
        const forged = JSON.parse(Buffer.from(p256Stamp(body, other.publicKey, other.privateKey), "base64url").toString()) as object;
        return { body, headers: stampHeader({ ...forged, publicKey: root().publicKey }) };
      },
      /could not verify api key signature/,
    ],
    [
      "a key registered in an unrelated organization",
      async () => {
        const stranger = await initRootOrganization(server.services, { organizationName: "Stranger" });
        const body = whoamiBody();
        return { body, headers: { "X-Stamp": p256Stamp(body, stranger.apiPublicKey, stranger.apiPrivateKey!) } };
      },
      /could not find public key .* in organization/,
    ],
    [
      "a P-256 stamp naming a secp256k1 key",
      async () => {
        const body = whoamiBody();
        const signature = bytesToHex(secp256k1.sign(sha256(Buffer.from(body)), k1Secret, { prehash: false, format: "der" }));
        return { body, headers: stampHeader({ publicKey: k1Public, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature }) };
      },
      /could not verify api key signature/,
    ],
  ];

  for (const [what, build, message] of refusals) {
    it(`refuses ${what} with 401 code 16`, async () => {
      const { body, headers } = await build();
      const { status, json } = await whoami(body, headers);
      expect(status).toBe(401);
      expect(json.code).toBe(16);
      expect(json.message).toMatch(message);
    });
  }

  for (const [what, offsetMs, message] of [
    ["stale", -61 * 60 * 1000, /more than one hour old/],
    ["future", 6 * 60 * 1000, /ahead of the server clock/],
  ] as const) {
    it(`refuses a ${what} timestampMs with 401 and writes nothing`, async () => {
      const before = await activityCount();
      const body = activityBody(
        "ACTIVITY_TYPE_CREATE_USER_TAG",
        server.root.organizationId,
        { userTagName: `t-${what}`, userIds: [] },
        String(Date.now() + offsetMs),
      );
      const { status, json } = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
        "X-Stamp": p256Stamp(body, root().publicKey, root().privateKey),
      });
      expect(status).toBe(401);
      expect(json.code).toBe(16);
      expect(json.message).toMatch(message);
      expect(await activityCount()).toBe(before);
    });
  }

  it("refuses an activity with a tampered body and writes nothing", async () => {
    const before = await activityCount();
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", server.root.organizationId, { userTagName: "signed", userIds: [] });
    const stamp = p256Stamp(body, root().publicKey, root().privateKey);
    const { status } = await post(`${server.url}/public/v1/submit/create_user_tag`, body.replace("signed", "swapped"), {
      "X-Stamp": stamp,
    });
    expect(status).toBe(401);
    expect(await activityCount()).toBe(before);
  });
});

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import * as bitcoin from "bitcoinjs-lib";
import { TypedDataEncoder, recoverAddress as ethersRecoverAddress, verifyTypedData as ethersVerifyTypedData } from "ethers";
import { createHash, createPublicKey, verify } from "node:crypto";
import * as ecc from "tiny-secp256k1";
import { recoverAddress, serializeSignature, serializeTypedData, verifyTypedData, type TypedDataDefinition } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { recoverAuthorizationAddress } from "viem/utils";
import { describe, expect, it } from "vitest";
import type { Curve } from "../../src/crypto/hd/derive.js";
import { generatePrivateKey, publicKeyOf } from "../../src/crypto/keys.js";
import {
  HASH_FUNCTIONS,
  PAYLOAD_ENCODINGS,
  signRawPayload,
  type HashFunction,
  type PayloadEncoding,
  type RawSignature,
  type SigningKey,
} from "../../src/crypto/signing/raw-payload.js";
import { signingInputRefusal } from "../helpers/signing-input.js";

bitcoin.initEccLib(ecc);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const utf8 = (text: string) => new TextEncoder().encode(text);
/** A fixed secp256k1 / P-256 / Ed25519 private key (deterministic signatures make the tests repeatable). */
const fixedKey = (seed: string) => sha256(utf8(seed));
const ethSignature = (sig: RawSignature) => serializeSignature({ r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: Number.parseInt(sig.v, 16) });

const typedData = {
  domain: {
    name: "Strongroom",
    version: "1",
    chainId: 8453n,
    verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
    salt: `0x${"11".repeat(32)}`,
  },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
      { name: "balance", type: "uint256" },
      { name: "delta", type: "int8" },
      { name: "memo", type: "bytes" },
      { name: "tag", type: "bytes4" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person[]" },
      { name: "pair", type: "uint64[2]" },
      { name: "urgent", type: "bool" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: {
      name: "Cow",
      wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826",
      balance: 12345678901234567890123n,
      delta: -5,
      memo: "0xdeadbeef",
      tag: "0x01020304",
    },
    to: [{ name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB", balance: 1n, delta: 7, memo: "0x", tag: "0xffffffff" }],
    pair: [1n, 2n],
    urgent: true,
    contents: "Hello, Bob!",
  },
} as const;
const EIP712_DOMAIN = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];
/** The payload as @turnkey/viem sends it (serializeTypedData; bigints become decimal strings). */
const viemTypedPayload = serializeTypedData({
  ...typedData,
  types: { EIP712Domain: EIP712_DOMAIN, ...typedData.types },
} as unknown as TypedDataDefinition);
/** The payload as @turnkey/ethers sends it (JSON of TypedDataEncoder.getPayload). */
const ethersTypedPayload = JSON.stringify(TypedDataEncoder.getPayload(typedData.domain, typedData.types as never, typedData.message));

describe("sign_raw_payload: secp256k1 ECDSA", () => {
  const message = "strongroom ✓";
  const messageBytes = utf8(message);
  const cases: { name: string; payload: string; encoding: PayloadEncoding; hash: HashFunction; digest: Uint8Array }[] = [
    {
      name: "hex NO_OP (0x)",
      payload: `0x${hex(keccak_256(messageBytes))}`,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_NO_OP",
      digest: keccak_256(messageBytes),
    },
    {
      name: "hex NO_OP (no 0x, upper case)",
      payload: hex(sha256(messageBytes)).toUpperCase(),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_NO_OP",
      digest: sha256(messageBytes),
    },
    {
      name: "hex NO_OP (0X)",
      payload: `0X${hex(sha256(messageBytes))}`,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_NO_OP",
      digest: sha256(messageBytes),
    },
    {
      name: "hex SHA256",
      payload: hex(messageBytes),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_SHA256",
      digest: sha256(messageBytes),
    },
    {
      name: "hex KECCAK256 (0x)",
      payload: `0x${hex(messageBytes)}`,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_KECCAK256",
      digest: keccak_256(messageBytes),
    },
    {
      name: "empty hex SHA256",
      payload: "",
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hash: "HASH_FUNCTION_SHA256",
      digest: sha256(new Uint8Array()),
    },
    {
      name: "UTF-8 SHA256",
      payload: message,
      encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
      hash: "HASH_FUNCTION_SHA256",
      digest: sha256(messageBytes),
    },
    {
      name: "UTF-8 KECCAK256",
      payload: message,
      encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
      hash: "HASH_FUNCTION_KECCAK256",
      digest: keccak_256(messageBytes),
    },
    {
      name: "UTF-8 NO_OP (32 bytes of text)",
      payload: "a".repeat(32),
      encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
      hash: "HASH_FUNCTION_NO_OP",
      digest: utf8("a".repeat(32)),
    },
  ];
  for (const c of cases) {
    it(`${c.name}: viem and ethers recover the signer from the digest`, async () => {
      const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey: fixedKey(c.name) };
      const address = privateKeyToAccount(`0x${hex(key.privateKey)}`).address;
      const sig = signRawPayload(key, c.payload, c.encoding, c.hash);
      expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.s).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.v).toMatch(/^0[01]$/);
      expect(await recoverAddress({ hash: `0x${hex(c.digest)}`, signature: ethSignature(sig) })).toBe(address);
      expect(ethersRecoverAddress(`0x${hex(c.digest)}`, { r: `0x${sig.r}`, s: `0x${sig.s}`, v: Number(sig.v) + 27 })).toBe(address);
    });
  }

  it("is low-S, pads r and s to 32 bytes, and v is the recovery id (both values occur)", async () => {
    const half = BigInt("0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0");
    const vs = new Set<string>();
    for (let i = 0; i < 48; i++) {
      const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey: fixedKey(`low-s ${i}`) };
      const digest = sha256(utf8(`message ${i}`));
      const sig = signRawPayload(key, hex(digest), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP");
      expect(BigInt(`0x${sig.s}`) <= half).toBe(true);
      expect(sig.r).toHaveLength(64);
      expect(sig.s).toHaveLength(64);
      vs.add(sig.v);
      expect(await recoverAddress({ hash: `0x${hex(digest)}`, signature: ethSignature(sig) })).toBe(
        privateKeyToAccount(`0x${hex(key.privateKey)}`).address,
      );
    }
    expect([...vs].sort()).toEqual(["00", "01"]);
  });

  it("EIP-712 typed data, as @turnkey/viem and as @turnkey/ethers serialize it, verifies with viem and ethers (NO_OP or KECCAK256)", async () => {
    const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey: fixedKey("eip712") };
    const address = privateKeyToAccount(`0x${hex(key.privateKey)}`).address;
    for (const payload of [viemTypedPayload, ethersTypedPayload]) {
      for (const hash of ["HASH_FUNCTION_NO_OP", "HASH_FUNCTION_KECCAK256"] as const) {
        const sig = signRawPayload(key, payload, "PAYLOAD_ENCODING_EIP712", hash);
        expect(await verifyTypedData({ ...(typedData as unknown as TypedDataDefinition), address, signature: ethSignature(sig) })).toBe(
          true,
        );
        expect(ethersVerifyTypedData(typedData.domain, typedData.types as never, typedData.message, ethSignature(sig))).toBe(address);
      }
    }
  });

  it("EIP-7702 authorizations verify with viem's recoverAuthorizationAddress (address or contractAddress, numbers or strings, big nonces)", async () => {
    const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey: fixedKey("eip7702") };
    const address = privateKeyToAccount(`0x${hex(key.privateKey)}`).address;
    const target = "0x1111111111111111111111111111111111111111" as const;
    const cases = [
      { payload: { address: target, chainId: 1, nonce: 7 }, expected: { chainId: 1, nonce: 7 } },
      { payload: { contractAddress: target, chainId: 0, nonce: 0 }, expected: { chainId: 0, nonce: 0 } },
      {
        payload: { address: target, chainId: "0x2105", nonce: "18446744073709551615" },
        expected: { chainId: 8453, nonce: 18446744073709551615n },
      },
    ];
    for (const c of cases) {
      for (const hash of ["HASH_FUNCTION_NO_OP", "HASH_FUNCTION_KECCAK256"] as const) {
        const sig = signRawPayload(key, JSON.stringify(c.payload), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", hash);
        const authorization = {
          address: target,
          chainId: c.expected.chainId,
          nonce: c.expected.nonce as number,
          r: `0x${sig.r}`,
          s: `0x${sig.s}`,
          yParity: Number(sig.v),
        } as const;
        expect(await recoverAuthorizationAddress({ authorization })).toBe(address);
      }
    }
  });
});

describe("sign_raw_payload: P-256 ECDSA", () => {
  const privateKey = fixedKey("p256");
  const uncompressed = p256.getPublicKey(privateKey, false);
  const nodeKey = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: Buffer.from(uncompressed.slice(1, 33)).toString("base64url"),
      y: Buffer.from(uncompressed.slice(33)).toString("base64url"),
    },
    format: "jwk",
  });
  const key: SigningKey = { curve: "CURVE_P256", privateKey };
  const message = "hello p256";
  const p1363 = (sig: RawSignature) => Buffer.from(sig.r + sig.s, "hex");

  it("SHA256 (hex and UTF-8) and NO_OP over a SHA-256 digest verify with node:crypto", () => {
    const signatures = [
      signRawPayload(key, message, "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_SHA256"),
      signRawPayload(key, `0x${hex(utf8(message))}`, "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"),
      signRawPayload(key, createHash("sha256").update(message).digest("hex"), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"),
    ];
    for (const sig of signatures) {
      expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.v).toMatch(/^0[01]$/);
      expect(verify("sha256", Buffer.from(message), { key: nodeKey, dsaEncoding: "ieee-p1363" }, p1363(sig))).toBe(true);
    }
  });

  it("KECCAK256 and EIP-712 digests verify as prehashed signatures, and v recovers the key", () => {
    const cases = [
      { sig: signRawPayload(key, message, "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256"), digest: keccak_256(utf8(message)) },
      {
        sig: signRawPayload(key, ethersTypedPayload, "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"),
        digest: Buffer.from(TypedDataEncoder.hash(typedData.domain, typedData.types as never, typedData.message).slice(2), "hex"),
      },
    ];
    for (const { sig, digest } of cases) {
      expect(p256.verify(p1363(sig), digest, uncompressed, { prehash: false })).toBe(true);
      const recovered = p256.Signature.fromBytes(p1363(sig), "compact").addRecoveryBit(Number(sig.v)).recoverPublicKey(digest);
      expect(hex(recovered.toBytes(false))).toBe(hex(uncompressed));
    }
  });
});

describe("sign_raw_payload: Ed25519", () => {
  const privateKey = fixedKey("ed25519");
  const publicKey = publicKeyOf("CURVE_ED25519", privateKey);
  const nodeKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
  const key: SigningKey = { curve: "CURVE_ED25519", privateKey };

  it("signs the payload bytes themselves (hex with or without 0x, UTF-8, any length); r ‖ s verifies with node:crypto, v is 00", () => {
    const cases = [
      { payload: "deadbeef", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", bytes: Buffer.from("deadbeef", "hex") },
      { payload: "0xdeadbeef", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", bytes: Buffer.from("deadbeef", "hex") },
      { payload: "", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", bytes: Buffer.alloc(0) },
      { payload: "ab".repeat(1000), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", bytes: Buffer.from("ab".repeat(1000), "hex") },
      { payload: "héllo solana", encoding: "PAYLOAD_ENCODING_TEXT_UTF8", bytes: Buffer.from("héllo solana", "utf8") },
    ] as const;
    for (const c of cases) {
      const sig = signRawPayload(key, c.payload, c.encoding, "HASH_FUNCTION_NOT_APPLICABLE");
      expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.s).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.v).toBe("00");
      expect(verify(null, c.bytes, nodeKey, Buffer.from(sig.r + sig.s, "hex"))).toBe(true);
    }
  });
});

describe("sign_raw_payload: Schnorr for P2TR and Spark keys", () => {
  const digest = sha256(utf8("taproot"));

  for (const format of [
    "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
    "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR",
    "ADDRESS_FORMAT_BITCOIN_SIGNET_P2TR",
    "ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR",
  ]) {
    it(`${format}: BIP-340 over the digest with the BIP-86 tweak, verified against bitcoinjs-lib's P2TR output key`, () => {
      const privateKey = fixedKey(format);
      const internal = Buffer.from(publicKeyOf("CURVE_SECP256K1", privateKey).slice(1));
      const outputKey = bitcoin.payments.p2tr({ internalPubkey: internal }).pubkey!;
      const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey, addressFormat: format };
      for (const [payload, encoding, hash, signed] of [
        [hex(digest), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP", digest],
        ["taproot", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_SHA256", digest],
        ["taproot", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_KECCAK256", keccak_256(utf8("taproot"))],
      ] as const) {
        const sig = signRawPayload(key, payload, encoding, hash);
        expect(sig.v).toBe("00");
        expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
        const signature = Buffer.from(sig.r + sig.s, "hex");
        expect(ecc.verifySchnorr(signed, outputKey, signature)).toBe(true);
        expect(ecc.verifySchnorr(signed, internal, signature)).toBe(false);
      }
    });
  }

  for (const format of ["ADDRESS_FORMAT_SPARK_MAINNET", "ADDRESS_FORMAT_SPARK_REGTEST"]) {
    it(`${format}: plain BIP-340 over the digest with the untweaked key`, () => {
      const privateKey = fixedKey(format);
      const xOnly = Buffer.from(publicKeyOf("CURVE_SECP256K1", privateKey).slice(1));
      const sig = signRawPayload(
        { curve: "CURVE_SECP256K1", privateKey, addressFormat: format },
        hex(digest),
        "PAYLOAD_ENCODING_HEXADECIMAL",
        "HASH_FUNCTION_NO_OP",
      );
      expect(sig.v).toBe("00");
      expect(ecc.verifySchnorr(digest, xOnly, Buffer.from(sig.r + sig.s, "hex"))).toBe(true);
    });
  }

  it("other address formats of a secp256k1 key sign ECDSA", async () => {
    for (const format of [
      "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
      "ADDRESS_FORMAT_ETHEREUM",
      "ADDRESS_FORMAT_TRON",
      "ADDRESS_FORMAT_COMPRESSED",
    ]) {
      const key: SigningKey = { curve: "CURVE_SECP256K1", privateKey: fixedKey(format), addressFormat: format };
      const sig = signRawPayload(key, hex(digest), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP");
      expect(await recoverAddress({ hash: `0x${hex(digest)}`, signature: ethSignature(sig) })).toBe(
        privateKeyToAccount(`0x${hex(key.privateKey)}`).address,
      );
    }
  });
});

describe("sign_raw_payload: the encoding × hash function matrix", () => {
  const modes: { name: string; key: SigningKey }[] = [
    { name: "secp256k1", key: { curve: "CURVE_SECP256K1", privateKey: generatePrivateKey("CURVE_SECP256K1") } },
    {
      name: "secp256k1 P2TR",
      key: {
        curve: "CURVE_SECP256K1",
        privateKey: generatePrivateKey("CURVE_SECP256K1"),
        addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR",
      },
    },
    {
      name: "secp256k1 Spark",
      key: { curve: "CURVE_SECP256K1", privateKey: generatePrivateKey("CURVE_SECP256K1"), addressFormat: "ADDRESS_FORMAT_SPARK_MAINNET" },
    },
    { name: "P-256", key: { curve: "CURVE_P256", privateKey: generatePrivateKey("CURVE_P256") } },
    { name: "Ed25519", key: { curve: "CURVE_ED25519", privateKey: generatePrivateKey("CURVE_ED25519") } },
  ];
  const payloadFor: Record<PayloadEncoding, string> = {
    PAYLOAD_ENCODING_HEXADECIMAL: `0x${"ab".repeat(32)}`,
    PAYLOAD_ENCODING_TEXT_UTF8: "b".repeat(32),
    PAYLOAD_ENCODING_EIP712: viemTypedPayload,
    PAYLOAD_ENCODING_EIP7702_AUTHORIZATION: JSON.stringify({ address: "0x1111111111111111111111111111111111111111", chainId: 1, nonce: 1 }),
  };
  const valid = (curve: Curve, encoding: PayloadEncoding, hash: HashFunction): boolean => {
    const structured = encoding === "PAYLOAD_ENCODING_EIP712" || encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION";
    if (curve === "CURVE_ED25519") return !structured && hash === "HASH_FUNCTION_NOT_APPLICABLE";
    if (hash === "HASH_FUNCTION_NOT_APPLICABLE") return false;
    return !(structured && hash === "HASH_FUNCTION_SHA256");
  };

  for (const { name, key } of modes) {
    for (const encoding of PAYLOAD_ENCODINGS) {
      for (const hash of HASH_FUNCTIONS) {
        const ok = valid(key.curve, encoding, hash);
        it(`${name} × ${encoding} × ${hash}: ${ok ? "signs" : "refused"}`, () => {
          if (ok) {
            const sig = signRawPayload(key, payloadFor[encoding], encoding, hash);
            expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
            expect(sig.s).toMatch(/^[0-9a-f]{64}$/);
            expect(sig.v).toMatch(/^0[01]$/);
          } else {
            expect(signingInputRefusal(() => signRawPayload(key, payloadFor[encoding], encoding, hash))).toMatch(
              /^(hashFunction|encoding): /,
            );
          }
        });
      }
    }
  }
});

describe("sign_raw_payload: refusals name the field and the problem", () => {
  const secp: SigningKey = { curve: "CURVE_SECP256K1", privateKey: generatePrivateKey("CURVE_SECP256K1") };
  const ed: SigningKey = { curve: "CURVE_ED25519", privateKey: generatePrivateKey("CURVE_ED25519") };

  it("bad hex, wrong digest length, wrong hash function for the curve", () => {
    expect(signingInputRefusal(() => signRawPayload(secp, "zz", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"))).toBe(
      "payload: not valid hexadecimal",
    );
    expect(signingInputRefusal(() => signRawPayload(secp, "abc", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"))).toBe(
      "payload: not valid hexadecimal",
    );
    expect(signingInputRefusal(() => signRawPayload(ed, "0xg0", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NOT_APPLICABLE"))).toBe(
      "payload: not valid hexadecimal",
    );
    expect(signingInputRefusal(() => signRawPayload(secp, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"))).toBe(
      "payload: HASH_FUNCTION_NO_OP needs a 32-byte digest, got 2 bytes",
    );
    expect(signingInputRefusal(() => signRawPayload(secp, "hello", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_NO_OP"))).toBe(
      "payload: HASH_FUNCTION_NO_OP needs a 32-byte digest, got 5 bytes",
    );
    expect(signingInputRefusal(() => signRawPayload(secp, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NOT_APPLICABLE"))).toMatch(
      /^hashFunction: HASH_FUNCTION_NOT_APPLICABLE is only for ed25519 keys/,
    );
    expect(signingInputRefusal(() => signRawPayload(ed, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"))).toMatch(
      /^hashFunction: ed25519 signs the payload itself; use HASH_FUNCTION_NOT_APPLICABLE/,
    );
    expect(signingInputRefusal(() => signRawPayload(ed, "ab".repeat(32), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"))).toMatch(
      /^hashFunction: ed25519 signs the payload itself/,
    );
    expect(signingInputRefusal(() => signRawPayload(ed, "{}", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NOT_APPLICABLE"))).toMatch(
      /^encoding: PAYLOAD_ENCODING_EIP712 is for secp256k1/,
    );
  });

  it("malformed EIP-712 and EIP-7702 payloads", () => {
    expect(signingInputRefusal(() => signRawPayload(secp, "{", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"))).toMatch(
      /^payload: not EIP-712 typed data as JSON/,
    );
    expect(signingInputRefusal(() => signRawPayload(secp, "[1]", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"))).toMatch(
      /^payload: not EIP-712/,
    );
    expect(
      signingInputRefusal(() =>
        signRawPayload(secp, JSON.stringify({ domain: {}, message: {} }), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"),
      ),
    ).toMatch(/^payload: EIP-712 typed data needs types and primaryType/);
    const badAddress = {
      ...JSON.parse(viemTypedPayload),
      message: { ...typedData.message, from: { ...typedData.message.from, wallet: "0x123", balance: "1" }, to: [], pair: ["1", "2"] },
    };
    expect(
      signingInputRefusal(() => signRawPayload(secp, JSON.stringify(badAddress), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP")),
    ).toMatch(/^payload: /);
    expect(signingInputRefusal(() => signRawPayload(secp, viemTypedPayload, "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_SHA256"))).toMatch(
      /^hashFunction: PAYLOAD_ENCODING_EIP712 payloads are hashed by their own rules; use HASH_FUNCTION_NO_OP/,
    );
    const auth = (value: object) => () =>
      signRawPayload(secp, JSON.stringify(value), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", "HASH_FUNCTION_NO_OP");
    expect(signingInputRefusal(auth({ chainId: 1, nonce: 0 }))).toMatch(/^payload: EIP-7702 authorization address must be/);
    expect(signingInputRefusal(auth({ address: "0x12", chainId: 1, nonce: 0 }))).toMatch(
      /^payload: EIP-7702 authorization address must be/,
    );
    expect(signingInputRefusal(auth({ address: "0x1111111111111111111111111111111111111111", nonce: 0 }))).toMatch(
      /^payload: EIP-7702 authorization chainId must be a non-negative integer/,
    );
    expect(signingInputRefusal(auth({ address: "0x1111111111111111111111111111111111111111", chainId: 1, nonce: -1 }))).toMatch(
      /^payload: EIP-7702 authorization nonce must be a non-negative integer/,
    );
    expect(
      signingInputRefusal(() => signRawPayload(secp, "not json", "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", "HASH_FUNCTION_NO_OP")),
    ).toMatch(/^payload: not an EIP-7702 authorization/);
  });
});

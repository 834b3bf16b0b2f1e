/**
 * Wallet creation and sign_raw_payload over HTTP against a Strongroom in its own process, beside the
 * bare cryptographic operations measured in this process on the same machine.
 *
 *   npm run bench:wallets                       # embedded PGlite in a temporary data directory
 *   DATABASE_URL=postgres://… npm run bench:wallets   # PostgreSQL (needs STRONGROOM_MASTER_KEY too)
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createPublicKey, randomBytes, verify } from "node:crypto";
import { createKeyEncryptionKey } from "../src/crypto/key-encryption.js";
import {
  ETH,
  loadAverageSampler,
  machine,
  percentile,
  perSecond,
  sequentialLatencies,
  startBuiltServerProcess,
  store,
  writeResult,
} from "./support.js";

function bareOperations() {
  const secpKey = secp256k1.utils.randomSecretKey();
  const digest = sha256(randomBytes(32));
  const stampKey = p256.utils.randomSecretKey();
  const body = Buffer.from(JSON.stringify({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters: { payload: "00".repeat(32) } }));
  const stampSignature = p256.sign(sha256(body), stampKey, { prehash: false, format: "der" });
  const uncompressed = p256.getPublicKey(stampKey, false);
  const stampPublicKey = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: Buffer.from(uncompressed.slice(1, 33)).toString("base64url"),
      y: Buffer.from(uncompressed.slice(33)).toString("base64url"),
    },
    format: "jwk",
  });
  const kek = createKeyEncryptionKey(randomBytes(32));
  const sealed = kek.seal(secpKey, "bench");
  return {
    secp256k1SignPerSecond: perSecond(2000, () => secp256k1.sign(digest, secpKey, { prehash: false, format: "recovered" })),
    stampVerifyPerSecond: perSecond(2000, () => verify("sha256", body, stampPublicKey, Buffer.from(stampSignature))),
    keyOpenPerSecond: perSecond(20000, () => kek.open(sealed, "bench")),
  };
}

async function main() {
  const load = loadAverageSampler();
  const strongroom = await startBuiltServerProcess();
  try {
    const client = strongroom.client();

    const walletsPerSecond = async (accounts: number, count: number) => {
      const start = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const accountList = Array.from({ length: accounts }, (_, index) => ({ ...ETH, path: `m/44'/60'/0'/0/${index}` }));
        ids.push((await client.createWallet({ walletName: `w${accounts}-${i}-${Date.now()}`, accounts: accountList })).walletId);
      }
      const rate = count / ((performance.now() - start) / 1000);
      await client.deleteWallets({ walletIds: ids, deleteWithoutExport: true });
      return rate;
    };
    const oneAccount = await walletsPerSecond(1, 90);
    const tenAccounts = await walletsPerSecond(10, 90);

    const { addresses } = await client.createWallet({ walletName: "signer", accounts: [ETH] });
    const sign = () =>
      client.signRawPayload({
        signWith: addresses[0]!,
        payload: randomBytes(32).toString("hex"),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
    const latencies = await sequentialLatencies(1000, sign);
    const concurrency = 16;
    const total = 2000;
    let issued = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (issued++ < total) await sign();
      }),
    );
    const signsPerSecond = total / ((performance.now() - start) / 1000);

    const bare = bareOperations();
    const bareMs = 1000 / bare.secp256k1SignPerSecond + 1000 / bare.stampVerifyPerSecond + 1000 / bare.keyOpenPerSecond;
    const p50 = percentile(latencies, 50);
    const report = {
      machine: machine(),
      store: store(),
      walletsPerSecond: { oneAccount: Math.round(oneAccount), tenAccounts: Math.round(tenAccounts) },
      signRawPayload: {
        sequentialP50Ms: +p50.toFixed(2),
        sequentialP99Ms: +percentile(latencies, 99).toFixed(2),
        perSecondAt16Connections: Math.round(signsPerSecond),
      },
      bare: {
        secp256k1SignPerSecond: Math.round(bare.secp256k1SignPerSecond),
        p256StampVerifyPerSecond: Math.round(bare.stampVerifyPerSecond),
        sealedKeyOpenPerSecond: Math.round(bare.keyOpenPerSecond),
        signPlusStampVerifyMs: +bareMs.toFixed(3),
      },
      p50OverBare: +(p50 / bareMs).toFixed(1),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const { bare: limits, ...figures } = report;
    writeResult({
      benchmark: `wallets-${store() === "PostgreSQL" ? "postgres" : "pglite"}`,
      loadAverage: load.finish(),
      limits,
      figures,
      ratios: { "sign p50: bare sign + stamp verify + key open ÷ p50": +(bareMs / p50).toFixed(3) },
    });
  } finally {
    await strongroom.stop();
  }
}

await main();

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import * as bitcoin from "bitcoinjs-lib";
import { Transaction as EthersTransaction } from "ethers";
import { createPublicKey, verify } from "node:crypto";
import * as ecc from "tiny-secp256k1";
import { recoverAddress, recoverPublicKey, recoverTransactionAddress, serializeSignature, serializeTransaction, verifyTypedData, type TransactionSerializable } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { recoverAuthorizationAddress } from "viem/utils";
import { describe, expect, it } from "vitest";
import { generatePrivateKey, publicKeyOf } from "../../src/crypto/keys.js";
import { SigningInputError, signRawPayload, type SigningKey } from "../../src/crypto/signing/raw-payload.js";
import { signTransaction } from "../../src/crypto/signing/transaction.js";

bitcoin.initEccLib(ecc);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const secp = (addressFormat?: string) => {
  const privateKey = generatePrivateKey("CURVE_SECP256K1");
  return { curve: "CURVE_SECP256K1" as const, privateKey, publicKey: publicKeyOf("CURVE_SECP256K1", privateKey), ...(addressFormat ? { addressFormat } : {}) };
};
const ethSignature = (sig: { r: string; s: string; v: string }) => serializeSignature({ r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: Number.parseInt(sig.v, 16) });

const typedData = {
  domain: { name: "Strongroom", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: { Mail: [{ name: "contents", type: "string" }] },
  primaryType: "Mail",
  message: { contents: "hello" },
} as const;

describe("raw payload signatures, verified by independent libraries", () => {
  it("secp256k1 ECDSA recovers to the signer for NO_OP, SHA256 and KECCAK256, in hex and UTF-8", async () => {
    const key = secp();
    const account = privateKeyToAccount(`0x${hex(key.privateKey)}`);
    const message = "strongroom";
    const cases = [
      { payload: `0x${hex(keccak_256(new TextEncoder().encode(message)))}`, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hash: "HASH_FUNCTION_NO_OP", digest: keccak_256(new TextEncoder().encode(message)) },
      { payload: message, encoding: "PAYLOAD_ENCODING_TEXT_UTF8", hash: "HASH_FUNCTION_KECCAK256", digest: keccak_256(new TextEncoder().encode(message)) },
      { payload: message, encoding: "PAYLOAD_ENCODING_TEXT_UTF8", hash: "HASH_FUNCTION_SHA256", digest: sha256(new TextEncoder().encode(message)) },
      { payload: hex(new TextEncoder().encode(message)), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hash: "HASH_FUNCTION_SHA256", digest: sha256(new TextEncoder().encode(message)) },
    ] as const;
    for (const c of cases) {
      const sig = signRawPayload(key, c.payload, c.encoding, c.hash);
      expect(sig.r).toMatch(/^[0-9a-f]{64}$/);
      expect(sig.v).toMatch(/^0[01]$/);
      expect(await recoverAddress({ hash: `0x${hex(c.digest)}`, signature: ethSignature(sig) })).toBe(account.address);
    }
  });

  it("EIP-712 and EIP-7702 payloads are hashed by their own rules", async () => {
    const key = secp();
    const account = privateKeyToAccount(`0x${hex(key.privateKey)}`);
    const typed = signRawPayload(key, JSON.stringify(typedData), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP");
    expect(await verifyTypedData({ ...typedData, address: account.address, signature: ethSignature(typed) })).toBe(true);
    const authorization = { chainId: 1, address: "0x1111111111111111111111111111111111111111", nonce: 7 } as const;
    const auth = signRawPayload(key, JSON.stringify(authorization), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", "HASH_FUNCTION_NO_OP");
    const recovered = await recoverAuthorizationAddress({ authorization: { ...authorization, r: `0x${auth.r}`, s: `0x${auth.s}`, yParity: Number(auth.v) } });
    expect(recovered).toBe(account.address);
  });

  it("P-256 ECDSA verifies with node:crypto", () => {
    const privateKey = generatePrivateKey("CURVE_P256");
    const sig = signRawPayload({ curve: "CURVE_P256", privateKey }, "hello", "PAYLOAD_ENCODING_TEXT_UTF8", "HASH_FUNCTION_SHA256");
    const publicKey = createPublicKey({ key: { kty: "EC", crv: "P-256", x: Buffer.from(p256.getPublicKey(privateKey, false).slice(1, 33)).toString("base64url"), y: Buffer.from(p256.getPublicKey(privateKey, false).slice(33)).toString("base64url") }, format: "jwk" });
    expect(verify("sha256", Buffer.from("hello"), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(sig.r + sig.s, "hex"))).toBe(true);
  });

  it("Ed25519 signs the payload itself and verifies with node:crypto", () => {
    const privateKey = generatePrivateKey("CURVE_ED25519");
    const publicKey = publicKeyOf("CURVE_ED25519", privateKey);
    const sig = signRawPayload({ curve: "CURVE_ED25519", privateKey }, "deadbeef", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NOT_APPLICABLE");
    expect(sig.v).toBe("00");
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
    expect(verify(null, Buffer.from("deadbeef", "hex"), key, Buffer.from(sig.r + sig.s, "hex"))).toBe(true);
  });

  it("P2TR keys sign BIP-340 Schnorr with the BIP-86 tweak; Spark keys without it", () => {
    const digest = sha256(new TextEncoder().encode("taproot"));
    const taproot = secp("ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR");
    const sig = signRawPayload(taproot, hex(digest), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP");
    expect(sig.v).toBe("00");
    const outputKey = bitcoin.payments.p2tr({ internalPubkey: Buffer.from(taproot.publicKey.slice(1)) }).pubkey!;
    expect(ecc.verifySchnorr(digest, outputKey, Buffer.from(sig.r + sig.s, "hex"))).toBe(true);

    const spark = secp("ADDRESS_FORMAT_SPARK_MAINNET");
    const plain = signRawPayload(spark, hex(digest), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP");
    expect(ecc.verifySchnorr(digest, spark.publicKey.slice(1), Buffer.from(plain.r + plain.s, "hex"))).toBe(true);
  });

  it("refuses combinations that cannot work, naming the field", () => {
    const key = secp();
    const ed: SigningKey = { curve: "CURVE_ED25519", privateKey: generatePrivateKey("CURVE_ED25519") };
    const refused = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(SigningInputError);
        return (error as Error).message;
      }
      throw new Error("expected a refusal");
    };
    expect(refused(() => signRawPayload(key, "zz", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"))).toMatch(/^payload: not valid hexadecimal/);
    expect(refused(() => signRawPayload(key, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"))).toMatch(/^payload: .*32-byte digest.*2 bytes/);
    expect(refused(() => signRawPayload(key, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NOT_APPLICABLE"))).toMatch(/^hashFunction: .*only for Ed25519/);
    expect(refused(() => signRawPayload(ed, "abcd", "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_SHA256"))).toMatch(/^hashFunction: Ed25519/);
    expect(refused(() => signRawPayload(key, "{", "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NO_OP"))).toMatch(/^payload: not EIP-712/);
  });
});

describe("transaction signatures, verified by independent libraries", () => {
  it("signs every Ethereum transaction type so viem and ethers recover the signer", async () => {
    const key = secp();
    const address = privateKeyToAccount(`0x${hex(key.privateKey)}`).address;
    const to = "0x2222222222222222222222222222222222222222" as const;
    const transactions: TransactionSerializable[] = [
      { type: "legacy", chainId: 1, nonce: 1, gasPrice: 10n, gas: 21000n, to, value: 5n },
      { type: "legacy", nonce: 1, gasPrice: 10n, gas: 21000n, to, value: 5n },
      { type: "eip2930", chainId: 10, nonce: 2, gasPrice: 10n, gas: 30000n, to, value: 1n, accessList: [{ address: to, storageKeys: [] }] },
      { type: "eip1559", chainId: 8453, nonce: 3, maxFeePerGas: 20n, maxPriorityFeePerGas: 1n, gas: 21000n, to, value: 7n, data: "0xa9059cbb" },
      {
        type: "eip7702",
        chainId: 1,
        nonce: 4,
        maxFeePerGas: 20n,
        maxPriorityFeePerGas: 1n,
        gas: 50000n,
        to,
        authorizationList: [{ chainId: 1, address: to, nonce: 5, r: `0x${"11".repeat(32)}`, s: `0x${"22".repeat(32)}`, yParity: 0 }],
      },
    ];
    for (const transaction of transactions) {
      const signed = signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", serializeTransaction(transaction).slice(2));
      expect(signed).not.toMatch(/^0x/);
      expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(address);
      expect(EthersTransaction.from(`0x${signed}`).from).toBe(address);
    }
  });

  it("signs legacy and versioned Solana transactions in the signer's slot", () => {
    const privateKey = generatePrivateKey("CURVE_ED25519");
    const signer = Keypair.fromSeed(privateKey);
    const feePayer = Keypair.generate();
    const blockhash = new PublicKey(Buffer.alloc(32, 9)).toBase58();
    const legacy = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: feePayer.publicKey, lamports: 5 }),
    );
    legacy.partialSign(feePayer);
    const key = { curve: "CURVE_ED25519" as const, privateKey, publicKey: signer.publicKey.toBytes() };
    const signedLegacy = Transaction.from(Buffer.from(signTransaction(key, "TRANSACTION_TYPE_SOLANA", legacy.serialize({ requireAllSignatures: false }).toString("hex")), "hex"));
    expect(signedLegacy.verifySignatures()).toBe(true);

    const message = new TransactionMessage({ payerKey: signer.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: feePayer.publicKey, lamports: 1 })] }).compileToV0Message();
    const versioned = new VersionedTransaction(message);
    const signed = VersionedTransaction.deserialize(Buffer.from(signTransaction(key, "TRANSACTION_TYPE_SOLANA", Buffer.from(versioned.serialize()).toString("hex")), "hex"));
    const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(signer.publicKey.toBytes()).toString("base64url") }, format: "jwk" });
    expect(verify(null, Buffer.from(signed.message.serialize()), publicKey, Buffer.from(signed.signatures[0]!))).toBe(true);

    expect(() => signTransaction({ ...key, privateKey: generatePrivateKey("CURVE_ED25519"), publicKey: Keypair.generate().publicKey.toBytes() }, "TRANSACTION_TYPE_SOLANA", legacy.serialize({ requireAllSignatures: false }).toString("hex"))).toThrow(/not one of the transaction's required signers/);
  });

  it("signs P2PKH, P2WPKH and P2TR inputs of a PSBT that bitcoinjs-lib validates, finalizes and extracts", () => {
    const key = secp();
    const pubkey = Buffer.from(key.publicKey);
    const network = bitcoin.networks.regtest;
    const p2wpkh = bitcoin.payments.p2wpkh({ pubkey, network });
    const p2tr = bitcoin.payments.p2tr({ internalPubkey: pubkey.subarray(1), network });
    const p2pkh = bitcoin.payments.p2pkh({ pubkey, network });
    const funding = new bitcoin.Transaction();
    funding.addInput(Buffer.alloc(32, 1), 0);
    funding.addOutput(p2pkh.output!, 50_000n);
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 2), index: 0, witnessUtxo: { script: p2wpkh.output!, value: 100_000n } });
    psbt.addInput({ hash: Buffer.alloc(32, 3), index: 1, witnessUtxo: { script: p2tr.output!, value: 100_000n }, tapInternalKey: pubkey.subarray(1) });
    psbt.addInput({ hash: funding.getHash(), index: 0, nonWitnessUtxo: funding.toBuffer() });
    psbt.addOutput({ address: p2wpkh.address!, value: 240_000n });

    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    const validator = (pub: Uint8Array, msghash: Uint8Array, signature: Uint8Array) =>
      pub.length === 32 ? ecc.verifySchnorr(msghash, pub, signature) : ecc.verify(msghash, pub, signature);
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins).toHaveLength(3);

    expect(() => signTransaction(secp(), "TRANSACTION_TYPE_BITCOIN", psbt.toHex())).toThrow(/can spend none of the PSBT's inputs/);
  });

  it("signs P2SH-wrapped P2WPKH and single-key P2WSH inputs", () => {
    const key = secp();
    const pubkey = Buffer.from(key.publicKey);
    const network = bitcoin.networks.testnet;
    const wrapped = bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey, network }), network });
    const wsh = bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2pk({ pubkey, network }), network });
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 2), index: 0, witnessUtxo: { script: wrapped.output!, value: 100_000n }, redeemScript: wrapped.redeem!.output! });
    psbt.addInput({ hash: Buffer.alloc(32, 3), index: 0, witnessUtxo: { script: wsh.output!, value: 100_000n }, witnessScript: wsh.redeem!.output! });
    psbt.addOutput({ address: wsh.address!, value: 150_000n });
    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    expect(signed.validateSignaturesOfAllInputs((pub, hash, signature) => ecc.verify(hash, pub, signature))).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins).toHaveLength(2);
  });

  it("signs Tron raw_data: sha256 ECDSA with the recovery id appended", async () => {
    const key = secp();
    const rawData = Buffer.from("0a02c1a4220891cb2d3b2c4b5d6e40f8d6b0a5ce315a67080112630a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412320a1541", "hex");
    const signature = signTransaction(key, "TRANSACTION_TYPE_TRON", rawData.toString("hex"));
    expect(signature).toMatch(/^[0-9a-f]{128}0[01]$/);
    const recovered = await recoverPublicKey({ hash: `0x${hex(sha256(rawData))}`, signature: ethSignature({ r: signature.slice(0, 64), s: signature.slice(64, 128), v: signature.slice(128) }) });
    expect(recovered.slice(4)).toBe(Buffer.from(secpUncompressed(key.publicKey)).toString("hex").slice(2));
  });

  it("refuses a key of the wrong curve and an unsupported type", () => {
    const ed = { curve: "CURVE_ED25519" as const, privateKey: generatePrivateKey("CURVE_ED25519"), publicKey: new Uint8Array(32) };
    expect(() => signTransaction(ed, "TRANSACTION_TYPE_ETHEREUM", "00")).toThrow(/needs a CURVE_SECP256K1 key/);
    expect(() => signTransaction(secp(), "TRANSACTION_TYPE_TEMPO", "76")).toThrow(/not supported/);
    expect(() => signTransaction(secp(), "TRANSACTION_TYPE_ETHEREUM", "c0ffee")).toThrow(/^unsignedTransaction: not an Ethereum transaction/);
  });
});

function secpUncompressed(compressed: Uint8Array): Uint8Array {
  return ecc.pointCompress(compressed, false);
}

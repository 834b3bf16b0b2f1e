import { sha256 } from "@noble/hashes/sha2.js";
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import * as bitcoin from "bitcoinjs-lib";
import { ECPairFactory } from "ecpair";
import { Transaction as EthersTransaction, Wallet } from "ethers";
import { createPublicKey, verify } from "node:crypto";
import * as ecc from "tiny-secp256k1";
import {
  parseTransaction,
  recoverPublicKey,
  recoverTransactionAddress,
  serializeSignature,
  serializeTransaction,
  toRlp,
  type TransactionSerializable,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { publicKeyOf } from "../../src/crypto/keys.js";
import { signTransaction } from "../../src/crypto/signing/transaction.js";
import { ethereumTransaction } from "../../src/policy/keywords/ethereum.js";
import { decodeEthereumTransaction } from "../../src/crypto/signing/ethereum-transaction.js";
import { signingInputRefusal } from "../helpers/signing-input.js";

bitcoin.initEccLib(ecc);
const ECPair = ECPairFactory(ecc);

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fixedKey = (seed: string) => sha256(new TextEncoder().encode(seed));
const secpKey = (seed: string, addressFormat?: string) => {
  const privateKey = fixedKey(seed);
  return {
    curve: "CURVE_SECP256K1" as const,
    privateKey,
    publicKey: publicKeyOf("CURVE_SECP256K1", privateKey),
    ...(addressFormat ? { addressFormat } : {}),
  };
};
const edKey = (seed: string) => {
  const privateKey = fixedKey(seed);
  return { curve: "CURVE_ED25519" as const, privateKey, publicKey: publicKeyOf("CURVE_ED25519", privateKey) };
};

describe("sign_transaction: Ethereum", () => {
  const key = secpKey("ethereum");
  const address = privateKeyToAccount(`0x${hex(key.privateKey)}`).address;
  const to = "0x2222222222222222222222222222222222222222" as const;
  const transactions: TransactionSerializable[] = [
    { type: "legacy", nonce: 1, gasPrice: 10n, gas: 21000n, to, value: 5n },
    { type: "legacy", chainId: 1, nonce: 1, gasPrice: 10n, gas: 21000n, to, value: 5n },
    { type: "legacy", chainId: 137, nonce: 0, gasPrice: 30_000_000_000n, gas: 60000n, to, value: 0n, data: "0xa9059cbb" },
    {
      type: "eip2930",
      chainId: 10,
      nonce: 2,
      gasPrice: 10n,
      gas: 30000n,
      to,
      value: 1n,
      accessList: [{ address: to, storageKeys: [`0x${"00".repeat(31)}01`] }],
    },
    {
      type: "eip1559",
      chainId: 8453,
      nonce: 3,
      maxFeePerGas: 20n,
      maxPriorityFeePerGas: 1n,
      gas: 21000n,
      to,
      value: 7n,
      data: "0xa9059cbb",
    },
    { type: "eip1559", chainId: 1, nonce: 4, maxFeePerGas: 20n, maxPriorityFeePerGas: 1n, gas: 100000n, value: 0n, data: "0x6080604052" },
    {
      type: "eip4844",
      chainId: 1,
      nonce: 5,
      maxFeePerGas: 20n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 3n,
      gas: 21000n,
      to,
      blobVersionedHashes: [`0x01${"ab".repeat(31)}`],
    },
    {
      type: "eip7702",
      chainId: 1,
      nonce: 6,
      maxFeePerGas: 20n,
      maxPriorityFeePerGas: 1n,
      gas: 50000n,
      to,
      authorizationList: [{ chainId: 1, address: to, nonce: 7, r: `0x${"11".repeat(32)}`, s: `0x${"22".repeat(32)}`, yParity: 0 }],
    },
  ];

  for (const transaction of transactions) {
    it(`${transaction.type}${transaction.chainId ? ` (chain ${transaction.chainId})` : ""}${transaction.to ? "" : " contract creation"}: viem and ethers recover the signer; the unsigned fields are unchanged`, async () => {
      const unsigned = serializeTransaction(transaction);
      for (const input of [unsigned.slice(2), unsigned]) {
        const signed = signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", input);
        expect(signed).toMatch(/^[0-9a-f]+$/);
        expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(address);
        const parsed = EthersTransaction.from(`0x${signed}`);
        expect(parsed.from).toBe(address);
        expect(parsed.unsignedSerialized).toBe(unsigned);
        const viemParsed = parseTransaction(`0x${signed}`);
        expect(viemParsed.nonce ?? 0).toBe(transaction.nonce);
        if (transaction.type === "legacy") {
          const v = viemParsed.v!;
          expect(
            transaction.chainId
              ? v === BigInt(transaction.chainId * 2 + 35) || v === BigInt(transaction.chainId * 2 + 36)
              : v === 27n || v === 28n,
          ).toBe(true);
        } else {
          expect([0, 1]).toContain(viemParsed.yParity);
        }
      }
    });
  }

  it("takes ethers' unsignedSerialized (what @turnkey/ethers sends) for types 0, 1, 2 and 4; ethers' own Wallet produces the same bytes", async () => {
    const wallet = new Wallet(`0x${hex(key.privateKey)}`);
    const requests = [
      { type: 0, chainId: 11155111, nonce: 9, gasPrice: 5n, gasLimit: 21000n, to, value: 1n },
      { type: 1, chainId: 5, nonce: 1, gasPrice: 5n, gasLimit: 21000n, to, value: 1n, accessList: [] },
      { type: 2, chainId: 11155111, nonce: 1, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n, gasLimit: 21000n, to, value: 5n },
      {
        type: 4,
        chainId: 1,
        nonce: 2,
        maxFeePerGas: 3n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 60000n,
        to,
        value: 0n,
        authorizationList: [await wallet.authorize({ address: to, nonce: 3, chainId: 1 })],
      },
    ];
    for (const request of requests) {
      const unsigned = EthersTransaction.from(request).unsignedSerialized;
      const signed = signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", unsigned.substring(2));
      expect(EthersTransaction.from(`0x${signed}`).from).toBe(address);
      // RFC 6979 signatures are deterministic: the same key signs the same bytes ethers would.
      expect(`0x${signed}`).toBe(await wallet.signTransaction(request));
    }
  });

  it("re-signs a transaction that already carries a signature", async () => {
    const other = privateKeyToAccount(`0x${hex(fixedKey("someone else"))}`);
    const alreadySigned = await other.signTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      gas: 21000n,
      to,
      value: 1n,
    });
    const signed = signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", alreadySigned);
    expect(await recoverTransactionAddress({ serializedTransaction: `0x${signed}` as never })).toBe(address);
  });

  it("refuses what is not an Ethereum transaction", () => {
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", "c0ffee"))).toMatch(
      /^unsignedTransaction: not an Ethereum transaction/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", "0x"))).toMatch(
      /^unsignedTransaction: empty Ethereum transaction/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", "xyz"))).toBe(
      "unsignedTransaction: not valid hexadecimal",
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", "0x05c0"))).toMatch(
      /^unsignedTransaction: not an Ethereum transaction/,
    );
  });
});

describe("sign_transaction: unpopulated and partially filled Ethereum transactions", () => {
  const key = secpKey("ethereum");
  const wallet = new Wallet(`0x${hex(key.privateKey)}`);
  const account = privateKeyToAccount(`0x${hex(key.privateKey)}`);
  const to = "0x2222222222222222222222222222222222222222" as const;

  it("ethers' unpopulated transactions of types 0, 1, 2 and 4 (empty RLP integers, no chain id): the same bytes ethers' own Wallet signs", async () => {
    const requests = [
      { type: 0, to, value: 1n },
      { type: 1, to, value: 1n },
      { type: 2, to, value: 1000n },
      { type: 2, data: "0x6080604052" },
      { type: 4, to, authorizationList: [await wallet.authorize({ address: to, nonce: 0, chainId: 0 })] },
    ];
    for (const request of requests) {
      const unsigned = EthersTransaction.from(request).unsignedSerialized;
      const signed = signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", unsigned.substring(2));
      const parsed = EthersTransaction.from(`0x${signed}`);
      expect(parsed.from).toBe(account.address);
      expect(parsed.chainId).toBe(0n);
      expect(parsed.nonce).toBe(0);
      expect(parsed.unsignedSerialized).toBe(unsigned);
      expect(`0x${signed}`).toBe(await wallet.signTransaction(request));
    }
  });

  it("viem's partially filled transactions of every type: the same bytes viem's own account signs, and viem recovers the signer", async () => {
    const transactions: TransactionSerializable[] = [
      { type: "legacy", to },
      { type: "legacy", chainId: 1, to, value: 2n },
      { type: "eip2930", chainId: 1, to },
      { type: "eip1559", chainId: 1, to, value: 3n },
      { type: "eip4844", chainId: 1, to, blobVersionedHashes: [`0x01${"ab".repeat(31)}`], maxFeePerBlobGas: 1n },
      {
        type: "eip7702",
        chainId: 1,
        to,
        authorizationList: [{ chainId: 1, address: to, nonce: 0, r: `0x${"11".repeat(32)}`, s: `0x${"22".repeat(32)}`, yParity: 1 }],
      },
    ];
    for (const transaction of transactions) {
      const signed = `0x${signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", serializeTransaction(transaction))}`;
      expect(signed).toBe(await account.signTransaction(transaction));
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(account.address);
    }
  });

  it("reads integers with leading zero bytes as their value and signs the canonical encoding", async () => {
    const nonCanonical = `0x02${toRlp(["0x01", "0x0005", "0x", "0x00", "0x5208", to, "0x0001", "0x", []]).slice(2)}`;
    const signed = EthersTransaction.from(`0x${signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", nonCanonical)}`);
    expect(signed.from).toBe(account.address);
    expect([signed.chainId, signed.nonce, signed.maxFeePerGas, signed.value]).toEqual([1n, 5, 0n, 1n]);
  });

  it("policies see the values the transaction is signed with: an empty chain id or nonce is 0", () => {
    const unsigned = EthersTransaction.from({ type: 2, to, value: 1000n }).unsignedSerialized;
    expect(ethereumTransaction(decodeEthereumTransaction(unsigned), account.address, undefined)).toMatchObject({
      chain_id: 0n,
      nonce: 0n,
      value: 1000n,
      gas: 0n,
      max_fee_per_gas: 0n,
      to,
      from: account.address.toLowerCase(),
      type: "TYPE_2",
    });
    const legacy = EthersTransaction.from({ type: 0, chainId: 5, to }).unsignedSerialized;
    expect(ethereumTransaction(decodeEthereumTransaction(legacy), undefined, undefined)).toMatchObject({
      chain_id: 5n,
      nonce: 0n,
      type: "LEGACY",
    });
  });

  it("refuses envelopes with the wrong number of fields, a field of the wrong shape, and integers over 256 bits", () => {
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", `0x02${toRlp(["0x01", "0x"]).slice(2)}`))).toBe(
      "unsignedTransaction: a eip1559 transaction has 9 fields (12 signed), not 2",
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", toRlp(["0x", "0x", "0x", "0x", "0x"])))).toBe(
      "unsignedTransaction: a legacy Ethereum transaction has 6 or 9 fields, not 5",
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", toRlp([[], "0x", "0x", to, "0x", "0x"])))).toBe(
      "unsignedTransaction: nonce must be an RLP integer",
    );
    expect(
      signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", toRlp(["0x", "0x", "0x", "0x1234", "0x", "0x"]))),
    ).toBe("unsignedTransaction: to must be empty or a 20-byte address");
    expect(
      signingInputRefusal(() =>
        signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", toRlp([`0x01${"00".repeat(32)}`, "0x", "0x", to, "0x", "0x"])),
      ),
    ).toBe("unsignedTransaction: nonce is larger than 256 bits");
  });
});

describe("sign_transaction: Solana", () => {
  const key = edKey("solana");
  const signer = Keypair.fromSeed(key.privateKey);
  const feePayer = Keypair.fromSeed(fixedKey("fee payer"));
  const third = Keypair.fromSeed(fixedKey("third signer"));
  const blockhash = new PublicKey(Buffer.alloc(32, 9)).toBase58();
  const verifyEd25519 = (publicKey: PublicKey, message: Uint8Array, signature: Uint8Array) =>
    verify(
      null,
      message,
      createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey.toBytes()).toString("base64url") }, format: "jwk" }),
      signature,
    );

  it("legacy, key as fee payer: Transaction.from(...).verifySignatures()", () => {
    const tx = new Transaction({ feePayer: signer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: feePayer.publicKey, lamports: 5 }),
    );
    const signed = Transaction.from(
      Buffer.from(
        signTransaction(
          key,
          "TRANSACTION_TYPE_SOLANA",
          tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex"),
        ),
        "hex",
      ),
    );
    expect(signed.verifySignatures()).toBe(true);
    expect(signed.signatures[0]!.publicKey.equals(signer.publicKey)).toBe(true);
  });

  it("legacy, key as second signer after a partial signature: both signatures verify", () => {
    const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: feePayer.publicKey, lamports: 5 }),
    );
    tx.partialSign(feePayer);
    const input = tx.serialize({ requireAllSignatures: false }).toString("hex");
    const signed = Transaction.from(Buffer.from(signTransaction(key, "TRANSACTION_TYPE_SOLANA", input), "hex"));
    expect(signed.verifySignatures()).toBe(true);
    expect(signed.signatures.map((s) => s.publicKey.toBase58())).toEqual([feePayer.publicKey.toBase58(), signer.publicKey.toBase58()]);
    // hex with 0x is accepted too
    expect(signTransaction(key, "TRANSACTION_TYPE_SOLANA", `0x${input}`)).toBe(signTransaction(key, "TRANSACTION_TYPE_SOLANA", input));
  });

  it("v0 with an address lookup table, key in the middle slot; the empty slot stays empty", () => {
    const table = new AddressLookupTableAccount({
      key: new PublicKey(Buffer.alloc(32, 7)),
      state: {
        deactivationSlot: BigInt("18446744073709551615"),
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [new PublicKey(Buffer.alloc(32, 3)), new PublicKey(Buffer.alloc(32, 4))],
      },
    });
    const instruction = new TransactionInstruction({
      programId: new PublicKey(Buffer.alloc(32, 5)),
      keys: [
        { pubkey: signer.publicKey, isSigner: true, isWritable: true },
        { pubkey: third.publicKey, isSigner: true, isWritable: false },
        { pubkey: new PublicKey(Buffer.alloc(32, 3)), isSigner: false, isWritable: false },
        { pubkey: new PublicKey(Buffer.alloc(32, 4)), isSigner: false, isWritable: true },
      ],
      data: Buffer.from([1, 2, 3]),
    });
    const message = new TransactionMessage({
      payerKey: feePayer.publicKey,
      recentBlockhash: blockhash,
      instructions: [instruction],
    }).compileToV0Message([table]);
    expect(message.addressTableLookups).toHaveLength(1);
    const tx = new VersionedTransaction(message);
    tx.sign([feePayer]);
    const signed = VersionedTransaction.deserialize(
      Buffer.from(signTransaction(key, "TRANSACTION_TYPE_SOLANA", hex(tx.serialize())), "hex"),
    );
    const signers = signed.message.staticAccountKeys.slice(0, signed.message.header.numRequiredSignatures);
    const slot = signers.findIndex((k) => k.equals(signer.publicKey));
    expect(slot).toBeGreaterThan(0);
    const messageBytes = signed.message.serialize();
    expect(verifyEd25519(signer.publicKey, messageBytes, signed.signatures[slot]!)).toBe(true);
    expect(verifyEd25519(feePayer.publicKey, messageBytes, signed.signatures[0]!)).toBe(true);
    const thirdSlot = signers.findIndex((k) => k.equals(third.publicKey));
    expect(hex(signed.signatures[thirdSlot]!)).toBe("00".repeat(64));
  });

  it("refuses a key that is not a required signer (even when the transaction mentions it), a bare message, garbage and other versions", () => {
    const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: feePayer.publicKey, toPubkey: signer.publicKey, lamports: 5 }),
    );
    const serialized = tx.serialize({ requireAllSignatures: false }).toString("hex");
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_SOLANA", serialized))).toBe(
      "unsignedTransaction: the signing key is not one of the transaction's 1 required signers",
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_SOLANA", tx.serializeMessage().toString("hex")))).toMatch(
      /^unsignedTransaction: .*not the message alone/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_SOLANA", "01"))).toMatch(/^unsignedTransaction: /);
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_SOLANA", ""))).toMatch(/^unsignedTransaction: empty/);
    const v1 = `01${"00".repeat(64)}81010001${"11".repeat(64)}`;
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_SOLANA", v1))).toMatch(
      /^unsignedTransaction: Solana message version 1 is not supported/,
    );
  });
});

describe("sign_transaction: Bitcoin PSBT", () => {
  const validator = (pub: Uint8Array, msghash: Uint8Array, signature: Uint8Array) =>
    pub.length === 32 ? ecc.verifySchnorr(msghash, pub, signature) : ecc.verify(msghash, pub, signature);
  const funding = (script: Uint8Array, value: bigint, seed: number) => {
    const tx = new bitcoin.Transaction();
    tx.addInput(Buffer.alloc(32, seed), 0);
    tx.addOutput(script, value);
    return tx;
  };

  it("P2PKH (nonWitnessUtxo), P2WPKH, P2TR key path: bitcoinjs-lib validates, finalizes and extracts; nothing was finalized by the signer", () => {
    const key = secpKey("bitcoin", "ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH");
    const pubkey = key.publicKey;
    const network = bitcoin.networks.regtest;
    const p2wpkh = bitcoin.payments.p2wpkh({ pubkey, network });
    const p2tr = bitcoin.payments.p2tr({ internalPubkey: pubkey.slice(1), network });
    const p2pkh = bitcoin.payments.p2pkh({ pubkey, network });
    const prev = funding(p2pkh.output!, 50_000n, 1);
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 2), index: 0, witnessUtxo: { script: p2wpkh.output!, value: 100_000n } });
    psbt.addInput({
      hash: Buffer.alloc(32, 3),
      index: 1,
      witnessUtxo: { script: p2tr.output!, value: 100_000n },
      tapInternalKey: pubkey.slice(1),
    });
    psbt.addInput({ hash: prev.getHash(), index: 0, nonWitnessUtxo: prev.toBuffer() });
    psbt.addOutput({ address: p2wpkh.address!, value: 240_000n });

    const out = signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex());
    expect(out).toMatch(/^70736274ff[0-9a-f]+$/);
    const signed = bitcoin.Psbt.fromHex(out, { network });
    expect(signed.data.inputs.every((input) => !input.finalScriptSig && !input.finalScriptWitness)).toBe(true);
    expect(signed.data.inputs[0]!.partialSig).toHaveLength(1);
    expect(signed.data.inputs[1]!.tapKeySig).toHaveLength(64);
    expect(signed.data.inputs[2]!.partialSig).toHaveLength(1);
    // the taproot signature is made by the tweaked key, which is what the output commits to
    expect(signed.validateSignaturesOfInput(1, validator, p2tr.pubkey!)).toBe(true);
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    const tx = signed.extractTransaction();
    expect(tx.ins).toHaveLength(3);
    expect(tx.ins[1]!.witness).toHaveLength(1);
    expect(tx.ins[1]!.witness[0]).toHaveLength(64);
  });

  it("P2TR input without tapInternalKey: recognized by its BIP-86 output key, tapInternalKey filled in, signed", () => {
    const key = secpKey("taproot no internal key", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR");
    const network = bitcoin.networks.testnet;
    const p2tr = bitcoin.payments.p2tr({ internalPubkey: key.publicKey.slice(1), network });
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 4), index: 0, witnessUtxo: { script: p2tr.output!, value: 10_000n } });
    psbt.addOutput({ address: p2tr.address!, value: 9_000n });
    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    expect(hex(signed.data.inputs[0]!.tapInternalKey!)).toBe(hex(key.publicKey.slice(1)));
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins[0]!.witness).toHaveLength(1);
  });

  it("P2SH-P2WPKH and single-key P2WSH inputs", () => {
    const key = secpKey("wrapped");
    const pubkey = key.publicKey;
    const network = bitcoin.networks.testnet;
    const wrapped = bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey, network }), network });
    const wsh = bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2pk({ pubkey, network }), network });
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({
      hash: Buffer.alloc(32, 2),
      index: 0,
      witnessUtxo: { script: wrapped.output!, value: 100_000n },
      redeemScript: wrapped.redeem!.output!,
    });
    psbt.addInput({
      hash: Buffer.alloc(32, 3),
      index: 0,
      witnessUtxo: { script: wsh.output!, value: 100_000n },
      witnessScript: wsh.redeem!.output!,
    });
    psbt.addOutput({ address: wsh.address!, value: 150_000n });
    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins).toHaveLength(2);
  });

  it("signs only its own inputs; another signer completes the PSBT with bitcoinjs-lib", () => {
    const key = secpKey("mine");
    const other = ECPair.fromPrivateKey(fixedKey("theirs"));
    const network = bitcoin.networks.bitcoin;
    const mine = bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network });
    const theirs = bitcoin.payments.p2wpkh({ pubkey: other.publicKey, network });
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 5), index: 0, witnessUtxo: { script: theirs.output!, value: 30_000n } });
    psbt.addInput({ hash: Buffer.alloc(32, 6), index: 0, witnessUtxo: { script: mine.output!, value: 30_000n } });
    psbt.addOutput({ address: theirs.address!, value: 50_000n });
    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    expect(signed.data.inputs[0]!.partialSig).toBeUndefined();
    expect(signed.validateSignaturesOfInput(1, validator)).toBe(true);
    signed.signInput(0, other);
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins).toHaveLength(2);
  });

  it("uses the sighash type the PSBT asks for (SIGHASH_SINGLE|ANYONECANPAY on P2WPKH, SIGHASH_ALL on P2TR)", () => {
    const key = secpKey("sighash");
    const network = bitcoin.networks.regtest;
    const wpkh = bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network });
    const tr = bitcoin.payments.p2tr({ internalPubkey: key.publicKey.slice(1), network });
    const single = bitcoin.Transaction.SIGHASH_SINGLE | bitcoin.Transaction.SIGHASH_ANYONECANPAY;
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 7), index: 0, witnessUtxo: { script: wpkh.output!, value: 20_000n }, sighashType: single });
    psbt.addInput({
      hash: Buffer.alloc(32, 8),
      index: 0,
      witnessUtxo: { script: tr.output!, value: 20_000n },
      tapInternalKey: key.publicKey.slice(1),
      sighashType: bitcoin.Transaction.SIGHASH_ALL,
    });
    psbt.addOutput({ address: wpkh.address!, value: 19_000n });
    psbt.addOutput({ address: tr.address!, value: 19_000n });
    const signed = bitcoin.Psbt.fromHex(signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()), { network });
    expect(signed.data.inputs[0]!.partialSig![0]!.signature.at(-1)).toBe(single);
    expect(signed.data.inputs[1]!.tapKeySig).toHaveLength(65);
    expect(signed.data.inputs[1]!.tapKeySig!.at(-1)).toBe(bitcoin.Transaction.SIGHASH_ALL);
    expect(signed.validateSignaturesOfAllInputs(validator)).toBe(true);
    signed.finalizeAllInputs();
    expect(signed.extractTransaction().ins).toHaveLength(2);
  });

  it("refuses a PSBT the key signs no input of, base64, garbage, and an own input that cannot be signed", () => {
    const key = secpKey("refusals");
    const network = bitcoin.networks.bitcoin;
    const other = bitcoin.payments.p2wpkh({ pubkey: ECPair.fromPrivateKey(fixedKey("stranger")).publicKey, network });
    const psbt = new bitcoin.Psbt({ network });
    psbt.addInput({ hash: Buffer.alloc(32, 9), index: 0, witnessUtxo: { script: other.output!, value: 1_000n } });
    psbt.addOutput({ address: other.address!, value: 500n });
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toHex()))).toMatch(
      /^unsignedTransaction: the signing key can spend none of the PSBT's 1 inputs/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_BITCOIN", psbt.toBase64()))).toBe(
      "unsignedTransaction: this PSBT is base64; send the PSBT as hex",
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_BITCOIN", "70736274ff00"))).toMatch(
      /^unsignedTransaction: not a PSBT \(hex\)/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_BITCOIN", "zz"))).toBe(
      "unsignedTransaction: not valid hexadecimal",
    );

    const mine = bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network });
    const bad = new bitcoin.Psbt({ network });
    bad.addInput({ hash: Buffer.alloc(32, 10), index: 0, witnessUtxo: { script: mine.output!, value: 1_000n }, sighashType: 0x05 });
    bad.addOutput({ address: mine.address!, value: 500n });
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_BITCOIN", bad.toHex()))).toMatch(
      /^unsignedTransaction: input 0 belongs to the signing key but cannot be signed/,
    );
  });
});

/** A minimal protobuf reader, independent of the module under test. */
function readProto(bytes: Uint8Array): { field: number; wire: number; value: Uint8Array | bigint }[] {
  const out: { field: number; wire: number; value: Uint8Array | bigint }[] = [];
  let i = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
      if (!(b & 0x80)) return result;
    }
  };
  while (i < bytes.length) {
    const key = Number(varint());
    const wire = key & 7;
    if (wire === 0) out.push({ field: key >> 3, wire, value: varint() });
    else if (wire === 2) {
      const length = Number(varint());
      out.push({ field: key >> 3, wire, value: bytes.slice(i, i + length) });
      i += length;
    } else throw new Error(`wire type ${wire}`);
  }
  return out;
}

describe("sign_transaction: Tron", () => {
  // A TransferContract raw_data laid out as TronWeb's raw_data_hex: ref_block_bytes (1), ref_block_hash (4),
  // expiration (8), contract (11) {type (1), parameter (2) Any {type_url (1), value (2)}}, timestamp (14).
  const varint = (n: bigint) => {
    const out: number[] = [];
    while (n >= 0x80n) {
      out.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    return [...out, Number(n)];
  };
  const bytesField = (field: number, value: Uint8Array) =>
    Buffer.from([...varint(BigInt(field * 8 + 2)), ...varint(BigInt(value.length)), ...value]);
  const intField = (field: number, value: bigint) => Buffer.from([...varint(BigInt(field * 8)), ...varint(value)]);
  const transfer = Buffer.concat([
    bytesField(1, Buffer.from("41a614f803b6fd780986a42c78ec9c7f77e6ded13c", "hex")),
    bytesField(2, Buffer.from("41f0c2a2a0e9c4f59ff1b5b7e2cd12f2a6d6a8ea5c", "hex")),
    intField(3, 100n),
  ]);
  const any = Buffer.concat([bytesField(1, Buffer.from("type.googleapis.com/protocol.TransferContract")), bytesField(2, transfer)]);
  const contract = Buffer.concat([intField(1, 1n), bytesField(2, any)]);
  const rawDataHex = Buffer.concat([
    bytesField(1, Buffer.from("6310", "hex")),
    bytesField(4, Buffer.from("c1a3f0f7b4d3e6a0", "hex")),
    intField(8, 1_755_000_060_000n),
    bytesField(11, contract),
    intField(14, 1_755_000_000_000n),
  ]).toString("hex");
  const rawData = Buffer.from(rawDataHex, "hex");
  const key = secpKey("tron", "ADDRESS_FORMAT_TRON");
  const uncompressed = ecc.pointCompress(key.publicKey, false);

  const checkSignature = async (signature: Uint8Array) => {
    expect(signature).toHaveLength(65);
    expect([0, 1]).toContain(signature[64]);
    const recovered = await recoverPublicKey({
      hash: `0x${hex(sha256(rawData))}`,
      signature: serializeSignature({
        r: `0x${hex(signature.slice(0, 32))}`,
        s: `0x${hex(signature.slice(32, 64))}`,
        yParity: signature[64]!,
      }),
    });
    expect(recovered).toBe(`0x${hex(uncompressed)}`);
  };

  it("raw_data_hex in, the signed protobuf Transaction {raw_data, signature} out; the signature is ECDSA over sha256(raw_data) with v = recovery id", async () => {
    expect(readProto(rawData).some((f) => f.field === 11)).toBe(true);
    for (const input of [rawDataHex, `0x${rawDataHex}`]) {
      const signed = signTransaction(key, "TRANSACTION_TYPE_TRON", input);
      expect(signed).toMatch(/^0a[0-9a-f]+$/);
      const fields = readProto(Buffer.from(signed, "hex"));
      expect(fields.map((f) => f.field)).toEqual([1, 2]);
      expect(hex(fields[0]!.value as Uint8Array)).toBe(rawDataHex);
      await checkSignature(fields[1]!.value as Uint8Array);
    }
  });

  it("a serialized Transaction that already has a signature (multi-signature) gets this one appended", async () => {
    const first = signTransaction(secpKey("co-signer"), "TRANSACTION_TYPE_TRON", rawDataHex);
    const signed = signTransaction(key, "TRANSACTION_TYPE_TRON", first);
    const fields = readProto(Buffer.from(signed, "hex"));
    expect(fields.map((f) => f.field)).toEqual([1, 2, 2]);
    expect(hex(fields[1]!.value as Uint8Array)).toBe(hex(readProto(Buffer.from(first, "hex"))[1]!.value as Uint8Array));
    await checkSignature(fields[2]!.value as Uint8Array);
  });

  it("refuses JSON, non-protobuf bytes and protobuf without a contract", () => {
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_TRON", JSON.stringify({ raw_data_hex: rawDataHex })))).toMatch(
      /^unsignedTransaction: give the Tron transaction's raw_data_hex/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_TRON", "ffff"))).toMatch(
      /^unsignedTransaction: not a Tron transaction/,
    );
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_TRON", rawDataHex.slice(0, 30)))).toMatch(
      /^unsignedTransaction: not a Tron transaction/,
    );
    expect(
      signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_TRON", bytesField(1, Buffer.from("6310", "hex")).toString("hex"))),
    ).toMatch(/^unsignedTransaction: not a Tron transaction/);
    expect(signingInputRefusal(() => signTransaction(key, "TRANSACTION_TYPE_TRON", ""))).toMatch(/^unsignedTransaction: empty/);
  });
});

describe("sign_transaction: types and curves", () => {
  it("refuses a key of the wrong curve and TEMPO", () => {
    expect(signingInputRefusal(() => signTransaction(edKey("x"), "TRANSACTION_TYPE_ETHEREUM", "00"))).toMatch(
      /^signWith: TRANSACTION_TYPE_ETHEREUM needs a CURVE_SECP256K1 key/,
    );
    expect(signingInputRefusal(() => signTransaction(secpKey("x"), "TRANSACTION_TYPE_SOLANA", "00"))).toMatch(
      /^signWith: TRANSACTION_TYPE_SOLANA needs a CURVE_ED25519 key/,
    );
    expect(
      signingInputRefusal(() =>
        signTransaction(
          { curve: "CURVE_P256", privateKey: fixedKey("p"), publicKey: new Uint8Array(33) },
          "TRANSACTION_TYPE_BITCOIN",
          "00",
        ),
      ),
    ).toMatch(/^signWith: /);
    expect(signingInputRefusal(() => signTransaction(secpKey("x"), "TRANSACTION_TYPE_TEMPO", "76c0"))).toMatch(
      /^type: TRANSACTION_TYPE_TEMPO is not supported/,
    );
  });
});

/**
 * The official @turnkey/viem, @turnkey/ethers and @turnkey/solana signers, driven through a
 * stand-in for the SDK client whose signRawPayload(s) / signTransaction answer with the pure signing
 * functions: what these packages send is what the functions take, and what the functions return is
 * what the packages turn into signatures that viem, ethers and node:crypto accept.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { TurnkeySigner as EthersTurnkeySigner } from "@turnkey/ethers";
import { TurnkeySigner as SolanaTurnkeySigner } from "@turnkey/solana";
import { createAccount } from "@turnkey/viem";
import { Transaction as EthersTransaction, verifyMessage as ethersVerifyMessage, verifyTypedData as ethersVerifyTypedData } from "ethers";
import { createPublicKey, verify } from "node:crypto";
import { createWalletClient, custom, recoverTransactionAddress, verifyMessage, verifyTypedData, type TypedDataDefinition } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { recoverAuthorizationAddress } from "viem/utils";
import { describe, expect, it } from "vitest";
import { publicKeyOf } from "../../src/crypto/keys.js";
import { signRawPayload, type HashFunction, type PayloadEncoding, type SigningKey } from "../../src/crypto/signing/raw-payload.js";
import { signTransaction, type TransactionType } from "../../src/crypto/signing/transaction.js";

type Key = SigningKey & { publicKey: Uint8Array };
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const completed = { id: "activity", status: "ACTIVITY_STATUS_COMPLETED" };

/** The parts of @turnkey/sdk-server's client these packages call, answered by the pure functions. */
function fakeClient(keys: Record<string, Key>) {
  const requests: Record<string, unknown>[] = [];
  const keyOf = (signWith: string) => {
    const key = keys[signWith];
    if (!key) throw new Error(`unknown signWith ${signWith}`);
    return key;
  };
  return {
    requests,
    client: {
      async signRawPayload(params: { signWith: string; payload: string; encoding: PayloadEncoding; hashFunction: HashFunction }) {
        requests.push({ method: "signRawPayload", ...params });
        return { activity: completed, ...signRawPayload(keyOf(params.signWith), params.payload, params.encoding, params.hashFunction) };
      },
      async signRawPayloads(params: { signWith: string; payloads: string[]; encoding: PayloadEncoding; hashFunction: HashFunction }) {
        requests.push({ method: "signRawPayloads", ...params });
        return {
          activity: completed,
          signatures: params.payloads.map((payload) =>
            signRawPayload(keyOf(params.signWith), payload, params.encoding, params.hashFunction),
          ),
        };
      },
      async signTransaction(params: { signWith: string; unsignedTransaction: string; type: TransactionType }) {
        requests.push({ method: "signTransaction", ...params });
        return { activity: completed, signedTransaction: signTransaction(keyOf(params.signWith), params.type, params.unsignedTransaction) };
      },
    },
  };
}

const ethKey = (): Key & { address: `0x${string}` } => {
  const privateKey = sha256(new TextEncoder().encode("turnkey packages ethereum"));
  return {
    curve: "CURVE_SECP256K1",
    privateKey,
    publicKey: publicKeyOf("CURVE_SECP256K1", privateKey),
    address: privateKeyToAccount(`0x${hex(privateKey)}`).address,
  };
};

const typedData = {
  domain: { name: "Strongroom", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Mail: [
      { name: "contents", type: "string" },
      { name: "amount", type: "uint256" },
    ],
  },
  primaryType: "Mail",
  message: { contents: "hello", amount: 10n ** 30n },
} as const;

describe("@turnkey/viem", () => {
  it("signMessage, signTypedData, signTransaction (every type) and signAuthorization verify with viem", async () => {
    const key = ethKey();
    const { client, requests } = fakeClient({ [key.address]: key });
    const account = await createAccount({ client: client as never, organizationId: "org", signWith: key.address });

    const message = await account.signMessage({ message: "hello strongroom" });
    expect(await verifyMessage({ address: key.address, message: "hello strongroom", signature: message })).toBe(true);
    expect(requests.at(-1)).toMatchObject({ encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });
    expect(requests.at(-1)!.payload).toMatch(/^0x[0-9a-f]{64}$/);

    // Through a wallet client, as apps do (it adds EIP712Domain to the types before the account serializes them).
    const wallet = createWalletClient({ account, transport: custom({ request: async () => null }) });
    const typed = await wallet.signTypedData(typedData);
    expect(await verifyTypedData({ ...(typedData as unknown as TypedDataDefinition), address: key.address, signature: typed })).toBe(true);
    expect(requests.at(-1)).toMatchObject({ encoding: "PAYLOAD_ENCODING_EIP712", hashFunction: "HASH_FUNCTION_NO_OP" });

    const to = "0x2222222222222222222222222222222222222222" as const;
    for (const transaction of [
      { type: "legacy", chainId: 1, nonce: 0, gasPrice: 2n, gas: 21000n, to, value: 1n },
      { type: "eip2930", chainId: 1, nonce: 0, gasPrice: 2n, gas: 21000n, to, value: 1n, accessList: [] },
      { type: "eip1559", chainId: 1, nonce: 0, to, value: 1n, gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
      {
        type: "eip7702",
        chainId: 1,
        nonce: 0,
        to,
        gas: 60000n,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
        authorizationList: [{ chainId: 1, address: to, nonce: 1, r: `0x${"11".repeat(32)}`, s: `0x${"22".repeat(32)}`, yParity: 1 }],
      },
    ] as const) {
      const signed = await account.signTransaction(transaction as never);
      expect(signed).toMatch(/^0x[0-9a-f]+$/);
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(key.address);
      const request = requests.at(-1)!;
      expect(request).toMatchObject({ method: "signTransaction", type: "TRANSACTION_TYPE_ETHEREUM" });
      expect(request.unsignedTransaction).not.toMatch(/^0x/);
    }

    const authorization = await account.signAuthorization!({ contractAddress: to, chainId: 1, nonce: 3 });
    expect(requests.at(-1)).toMatchObject({
      encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
      hashFunction: "HASH_FUNCTION_NO_OP",
      payload: JSON.stringify({ address: to, chainId: 1, nonce: 3 }),
    });
    expect(await recoverAuthorizationAddress({ authorization })).toBe(key.address);
  });
});

describe("@turnkey/ethers", () => {
  it("signMessage, signTypedData and signTransaction verify with ethers", async () => {
    const key = ethKey();
    const { client, requests } = fakeClient({ [key.address]: key });
    const signer = new EthersTurnkeySigner({ client: client as never, organizationId: "org", signWith: key.address });

    expect(ethersVerifyMessage("hello strongroom", await signer.signMessage("hello strongroom"))).toBe(key.address);
    expect(requests.at(-1)).toMatchObject({ encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" });

    const typed = await signer.signTypedData(typedData.domain, typedData.types as never, typedData.message);
    expect(ethersVerifyTypedData(typedData.domain, typedData.types as never, typedData.message, typed)).toBe(key.address);
    expect(requests.at(-1)).toMatchObject({ encoding: "PAYLOAD_ENCODING_EIP712", hashFunction: "HASH_FUNCTION_NO_OP" });

    const to = "0x2222222222222222222222222222222222222222";
    for (const request of [
      { type: 0, chainId: 1, nonce: 1, gasPrice: 3n, gasLimit: 21000n, to, value: 5n },
      { type: 1, chainId: 1, nonce: 1, gasPrice: 3n, gasLimit: 21000n, to, value: 5n, accessList: [] },
      { type: 2, chainId: 11155111, nonce: 1, to, value: 5n, gasLimit: 21000n, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n },
    ]) {
      const signed = await signer.signTransaction(request);
      expect(signed).toMatch(/^0x[0-9a-f]+$/);
      expect(EthersTransaction.from(signed).from).toBe(key.address);
      expect(requests.at(-1)!.unsignedTransaction).not.toMatch(/^0x/);
    }
  });
});

describe("@turnkey/solana", () => {
  it("signTransaction (legacy and v0), addSignature, signAllTransactions and signMessage verify", async () => {
    const privateKey = sha256(new TextEncoder().encode("turnkey packages solana"));
    const keypair = Keypair.fromSeed(privateKey);
    const address = keypair.publicKey.toBase58();
    const key: Key = { curve: "CURVE_ED25519", privateKey, publicKey: keypair.publicKey.toBytes() };
    const { client, requests } = fakeClient({ [address]: key });
    const signer = new SolanaTurnkeySigner({ organizationId: "org", client: client as never });
    const blockhash = new PublicKey(Buffer.alloc(32, 9)).toBase58();
    const recipient = Keypair.generate().publicKey;
    const legacy = () =>
      new Transaction({ feePayer: keypair.publicKey, recentBlockhash: blockhash }).add(
        SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: recipient, lamports: 5 }),
      );
    const versioned = () =>
      new VersionedTransaction(
        new TransactionMessage({
          payerKey: keypair.publicKey,
          recentBlockhash: blockhash,
          instructions: [SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: recipient, lamports: 1 })],
        }).compileToV0Message(),
      );
    const nodeKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key.publicKey).toString("base64url") },
      format: "jwk",
    });

    const signedLegacy = (await signer.signTransaction(legacy(), address)) as Transaction;
    expect(signedLegacy.verifySignatures()).toBe(true);
    expect(requests.at(-1)).toMatchObject({ method: "signTransaction", type: "TRANSACTION_TYPE_SOLANA" });
    expect(requests.at(-1)!.unsignedTransaction).toMatch(/^[0-9a-f]+$/);

    const signedV0 = (await signer.signTransaction(versioned(), address)) as VersionedTransaction;
    expect(verify(null, signedV0.message.serialize(), nodeKey, signedV0.signatures[0]!)).toBe(true);

    const viaRawPayload = legacy();
    await signer.addSignature(viaRawPayload, address);
    expect(viaRawPayload.verifySignatures()).toBe(true);
    expect(requests.at(-1)).toMatchObject({
      method: "signRawPayload",
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
    });

    const [first, second] = (await signer.signAllTransactions([legacy(), versioned()], address)) as [Transaction, VersionedTransaction];
    expect(first.verifySignatures()).toBe(true);
    expect(verify(null, second.message.serialize(), nodeKey, second.signatures[0]!)).toBe(true);

    const text = new TextEncoder().encode("sign in to strongroom");
    expect(verify(null, text, nodeKey, await signer.signMessage(text, address))).toBe(true);
  });
});

import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeySigner as EthersSigner } from "@turnkey/ethers";
import { TurnkeyClient } from "@turnkey/http";
import { TurnkeySigner as SolanaSigner } from "@turnkey/solana";
import { createAccount } from "@turnkey/viem";
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { verifyMessage as ethersVerifyMessage, verifyTypedData as ethersVerifyTypedData, Transaction as EthersTransaction } from "ethers";
import { createPublicKey, verify } from "node:crypto";
import { parseTransaction, recoverTransactionAddress, verifyMessage, verifyTypedData } from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const typedData = {
  domain: { name: "Strongroom", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Mail: [
      { name: "from", type: "address" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: { from: "0x1111111111111111111111111111111111111111", contents: "hello" },
} as const;

describe("signing through the unchanged @turnkey/viem, @turnkey/ethers and @turnkey/solana", () => {
  let server: TestServer;
  let http: TurnkeyClient;
  let ethAddress: `0x${string}`;
  let solAddress: string;

  beforeAll(async () => {
    server = await startTestServer();
    http = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
    );
    const { addresses } = await server.client().createWallet({
      walletName: "signing",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
      ],
    });
    ethAddress = addresses[0] as `0x${string}`;
    solAddress = addresses[1]!;
  });
  afterAll(async () => server.close());

  it("@turnkey/viem signs messages, typed data, transactions and authorizations that viem verifies", async () => {
    for (const client of [http, server.client()]) {
      const account = await createAccount({ client: client as never, organizationId: server.root.organizationId, signWith: ethAddress });
      const message = "hello strongroom";
      expect(await verifyMessage({ address: ethAddress, message, signature: await account.signMessage({ message }) })).toBe(true);
      // @turnkey/viem serializes the domain only when `types` lists EIP712Domain (viem's serializeTypedData).
      const withDomain = {
        ...typedData,
        domain: { ...typedData.domain, chainId: 1n },
        types: {
          ...typedData.types,
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      } as const;
      expect(await verifyTypedData({ ...withDomain, address: ethAddress, signature: await account.signTypedData(withDomain) })).toBe(true);
      const signed = await account.signTransaction({
        type: "eip1559",
        chainId: 1,
        nonce: 0,
        to: "0x2222222222222222222222222222222222222222",
        value: 1n,
        gas: 21000n,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
      });
      expect(parseTransaction(signed).value).toBe(1n);
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(ethAddress);
      const authorization = await account.signAuthorization!({
        chainId: 1,
        nonce: 3,
        contractAddress: "0x3333333333333333333333333333333333333333",
      });
      expect(await recoverAuthorizationAddress({ authorization })).toBe(ethAddress);
    }
  });

  it("@turnkey/ethers signs messages, typed data and transactions that ethers verifies", async () => {
    const signer = new EthersSigner({ client: server.client() as never, organizationId: server.root.organizationId, signWith: ethAddress });
    expect(await signer.getAddress()).toBe(ethAddress);
    expect(ethersVerifyMessage("hello", await signer.signMessage("hello"))).toBe(ethAddress);
    const types = { Mail: typedData.types.Mail.map((f) => ({ ...f })) };
    expect(
      ethersVerifyTypedData(
        typedData.domain,
        types,
        typedData.message,
        await signer.signTypedData(typedData.domain, types, typedData.message),
      ),
    ).toBe(ethAddress);
    const signed = await signer.signTransaction({
      type: 2,
      chainId: 11155111,
      nonce: 1,
      to: "0x2222222222222222222222222222222222222222",
      value: 5n,
      gasLimit: 21000n,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 1n,
    });
    expect(EthersTransaction.from(signed).from).toBe(ethAddress);
  });

  it("@turnkey/solana signs legacy and versioned transactions that verify", async () => {
    const signer = new SolanaSigner({ organizationId: server.root.organizationId, client: server.client() as never });
    const from = new PublicKey(solAddress);
    const to = Keypair.generate().publicKey;
    const recentBlockhash = new PublicKey(Buffer.alloc(32, 4)).toBase58();
    const legacy = new Transaction({ feePayer: from, recentBlockhash }).add(
      SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 10 }),
    );
    const signedLegacy = (await signer.signTransaction(legacy, solAddress)) as Transaction;
    expect(signedLegacy.verifySignatures()).toBe(true);

    const versioned = new VersionedTransaction(
      new TransactionMessage({
        payerKey: from,
        recentBlockhash,
        instructions: [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 2 })],
      }).compileToV0Message(),
    );
    const signed = (await signer.signTransaction(versioned, solAddress)) as VersionedTransaction;
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(from.toBytes()).toString("base64url") },
      format: "jwk",
    });
    expect(verify(null, Buffer.from(signed.message.serialize()), key, Buffer.from(signed.signatures[0]!))).toBe(true);

    const message = new TextEncoder().encode("gm");
    expect(verify(null, Buffer.from(message), key, Buffer.from(await signer.signMessage(message, solAddress)))).toBe(true);
  });

  it("signs several payloads at once, and refuses unusable input with 400 naming the field", async () => {
    const { signatures } = await server.client().signRawPayloads({
      signWith: solAddress,
      payloads: ["aa", "bb"],
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
    });
    expect(signatures).toHaveLength(2);
    const badHex = await refusal(
      server.client().signRawPayloads({
        signWith: solAddress,
        payloads: ["aa", "xyz"],
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      }),
    );
    expect(badHex.code).toBe(3);
    expect(badHex.message).toContain("payloads[1]");
    const badHash = await refusal(
      server.client().signRawPayload({
        signWith: solAddress,
        payload: "aa",
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_SHA256",
      }),
    );
    expect(badHash.message).toContain("hashFunction");
    // A key that does not exist is bad input, refused at submission (issue 14).
    const unknown = await refusal(
      server.client().signRawPayload({
        signWith: "0x0000000000000000000000000000000000000000",
        payload: "aa",
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_SHA256",
      }),
    );
    expect(unknown.code).toBe(3);
    expect(unknown.message).toContain("signWith");
  });
});

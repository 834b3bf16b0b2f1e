import { generateP256KeyPair } from "@turnkey/crypto";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import * as bitcoin from "bitcoinjs-lib";
import * as ecc from "tiny-secp256k1";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

bitcoin.initEccLib(ecc);

const account = (curve: string, path: string, addressFormat: string) =>
  ({ curve, pathFormat: "PATH_FORMAT_BIP32", path, addressFormat }) as never;
const TOKEN = "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238";
const RECIPIENT = "0x3333333333333333333333333333333333333333";

describe("policy keywords filled from the request", () => {
  let server: TestServer;
  let alice: ReturnType<TestServer["client"]>;
  let aliceId: string;
  let eth: string;
  let sol: string;
  let btc: string;
  let walletId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const key = generateP256KeyPair();
    aliceId = (
      await server.client().createUsers({
        users: [
          {
            userName: "alice",
            apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          },
        ],
      })
    ).userIds[0]!;
    alice = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    const wallet = await server.client().createWallet({
      walletName: "policy wallet",
      accounts: [
        account("CURVE_SECP256K1", "m/44'/60'/0'/0/0", "ADDRESS_FORMAT_ETHEREUM"),
        account("CURVE_ED25519", "m/44'/501'/0'/0'", "ADDRESS_FORMAT_SOLANA"),
        account("CURVE_SECP256K1", "m/84'/1'/0'/0/0", "ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH"),
      ],
    });
    [eth, sol, btc] = wallet.addresses as [string, string, string];
    walletId = wallet.walletId;
  });
  afterAll(async () => server.close());

  const allow = (policyName: string, condition: string) =>
    server.client().createPolicy({
      policyName,
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${aliceId}')`,
      condition,
      notes: "",
    });

  it("reads ERC-20 calls through an uploaded ABI: function_name and contract_call_args", async () => {
    await server.client().createSmartContractInterface({
      smartContractAddress: TOKEN,
      smartContractInterface: JSON.stringify(erc20Abi),
      type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
      label: "token",
    });
    expect((await server.client().getSmartContractInterfaces({})).smartContractInterfaces).toHaveLength(1);
    await allow(
      "small token transfers",
      `eth.tx.function_name == 'transfer' && eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.contract_call_args['amount'] < 1000 && eth.tx.contract_call_args['recipient'] == '${RECIPIENT}' && wallet.id == '${walletId}'`,
    );
    const transfer = (amount: bigint) =>
      serializeTransaction({
        type: "eip1559",
        chainId: 1,
        nonce: 0,
        to: TOKEN,
        gas: 60000n,
        maxFeePerGas: 2n,
        maxPriorityFeePerGas: 1n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [RECIPIENT, amount] }),
      }).slice(2);
    expect(
      (await alice.signTransaction({ signWith: eth, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: transfer(500n) })).activity
        .status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      (await refusal(alice.signTransaction({ signWith: eth, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: transfer(5000n) })))
        .code,
    ).toBe(7);
  });

  it("reads EIP-712 typed data signed as a raw payload", async () => {
    await allow(
      "usdc permits",
      "eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.primary_type == 'Permit' && activity.params.encoding == 'PAYLOAD_ENCODING_EIP712'",
    );
    const typed = (name: string) =>
      JSON.stringify({
        domain: { name, version: "2", chainId: 1, verifyingContract: TOKEN },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
          Permit: [{ name: "value", type: "uint256" }],
        },
        primaryType: "Permit",
        message: { value: "1" },
      });
    const sign = (name: string) =>
      alice.signRawPayload({
        signWith: eth,
        payload: typed(name),
        encoding: "PAYLOAD_ENCODING_EIP712",
        hashFunction: "HASH_FUNCTION_NO_OP",
      });
    expect((await sign("USD Coin")).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await refusal(sign("Other Coin"))).code).toBe(7);
  });

  it("reads Solana transfers", async () => {
    const recipient = Keypair.generate().publicKey;
    await allow(
      "sol to one recipient",
      `solana.tx.transfers.count() == 1 && solana.tx.transfers.all(t, t.to == '${recipient.toBase58()}' && t.amount <= 100) && wallet_account.address == '${sol}'`,
    );
    const tx = (to: PublicKey, lamports: number) =>
      new Transaction({ feePayer: new PublicKey(sol), recentBlockhash: new PublicKey(Buffer.alloc(32, 7)).toBase58() })
        .add(SystemProgram.transfer({ fromPubkey: new PublicKey(sol), toPubkey: to, lamports }))
        .serialize({ requireAllSignatures: false })
        .toString("hex");
    expect(
      (await alice.signTransaction({ signWith: sol, type: "TRANSACTION_TYPE_SOLANA", unsignedTransaction: tx(recipient, 100) })).activity
        .status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      (await refusal(alice.signTransaction({ signWith: sol, type: "TRANSACTION_TYPE_SOLANA", unsignedTransaction: tx(recipient, 101) })))
        .code,
    ).toBe(7);
    expect(
      (
        await refusal(
          alice.signTransaction({
            signWith: sol,
            type: "TRANSACTION_TYPE_SOLANA",
            unsignedTransaction: tx(Keypair.generate().publicKey, 1),
          }),
        )
      ).code,
    ).toBe(7);
  });

  it("reads Bitcoin outputs and the fee of a PSBT", async () => {
    await allow("small btc spends", "bitcoin.tx.outputs.all(o, o.value < 200000 && o.address_type == 'P2WPKH') && bitcoin.tx.fee <= 10000");
    const { publicKey } = (await server.client().getWalletAccount({ walletId, address: btc })).account;
    const payment = bitcoin.payments.p2wpkh({ pubkey: Buffer.from(publicKey!, "hex"), network: bitcoin.networks.regtest });
    const psbt = (send: bigint) => {
      const p = new bitcoin.Psbt({ network: bitcoin.networks.regtest });
      p.addInput({ hash: Buffer.alloc(32, 1), index: 0, witnessUtxo: { script: payment.output!, value: 300_000n } });
      p.addOutput({ address: payment.address!, value: send });
      p.addOutput({ address: payment.address!, value: 300_000n - send - 5_000n });
      return p.toHex();
    };
    expect(
      (await alice.signTransaction({ signWith: btc, type: "TRANSACTION_TYPE_BITCOIN", unsignedTransaction: psbt(150_000n) })).activity
        .status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      (await refusal(alice.signTransaction({ signWith: btc, type: "TRANSACTION_TYPE_BITCOIN", unsignedTransaction: psbt(50_000n) }))).code,
    ).toBe(7);
  });

  it("turns an evaluation error into that policy's error outcome, which allows nothing", async () => {
    const { policyId } = await allow(
      "reads a key that export requests lack",
      "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' && private_key.id == 'x'",
    );
    const target = generateP256KeyPair();
    const refused = await refusal(alice.exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed }));
    expect(refused.code).toBe(7);
    await server.client().deletePolicy({ policyId });
  });
});

describe("tron.tx", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  // A TransferContract raw_data, protobuf-encoded field by field as in Tron's protocol.proto.
  const varint = (n: bigint) => {
    const out: number[] = [];
    for (; n >= 0x80n; n >>= 7n) out.push(Number(n & 0x7fn) | 0x80);
    return [...out, Number(n)];
  };
  const bytesField = (field: number, value: Uint8Array) =>
    Buffer.from([...varint(BigInt(field * 8 + 2)), ...varint(BigInt(value.length)), ...value]);
  const intField = (field: number, value: bigint) => Buffer.from([...varint(BigInt(field * 8)), ...varint(value)]);
  const rawData = (to: string, amount: bigint) => {
    const transfer = Buffer.concat([
      bytesField(1, Buffer.from("41a614f803b6fd780986a42c78ec9c7f77e6ded13c", "hex")),
      bytesField(2, Buffer.from(to, "hex")),
      intField(3, amount),
    ]);
    const any = Buffer.concat([bytesField(1, Buffer.from("type.googleapis.com/protocol.TransferContract")), bytesField(2, transfer)]);
    return Buffer.concat([
      bytesField(1, Buffer.from("6310", "hex")),
      bytesField(4, Buffer.from("c1a3f0f7b4d3e6a0", "hex")),
      intField(8, 1_755_000_060_000n),
      bytesField(11, Buffer.concat([intField(1, 1n), bytesField(2, any)])),
      intField(14, 1_755_000_000_000n),
    ]).toString("hex");
  };

  it("reads the contract of a Tron transaction", async () => {
    const key = generateP256KeyPair();
    const userId = (
      await server.client().createUsers({
        users: [
          {
            userName: "t",
            apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          },
        ],
      })
    ).userIds[0]!;
    const user = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    const { addresses } = await server
      .client()
      .createWallet({ walletName: "tron", accounts: [account("CURVE_SECP256K1", "m/44'/195'/0'/0/0", "ADDRESS_FORMAT_TRON")] });
    // 41f0c2… is TXvELbP… in base58check: policies name Tron addresses as Tron wallets show them.
    await server.client().createPolicy({
      policyName: "small trx transfers",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${userId}')`,
      condition:
        "tron.tx.contract[0].type == 'TransferContract' && tron.tx.contract[0].amount < 10000000 && tron.tx.contract[0].to_address == 'TXvELbPmgzLYiTJmBHE4fcHZgkrutxYFXS' && tron.tx.ref_block_bytes == '6310'",
      notes: "",
    });
    const to = "41f0c2a2a0e9c4f59ff1b5b7e2cd12f2a6d6a8ea5c";
    expect(
      (await user.signTransaction({ signWith: addresses[0]!, type: "TRANSACTION_TYPE_TRON", unsignedTransaction: rawData(to, 100n) }))
        .activity.status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      (
        await refusal(
          user.signTransaction({ signWith: addresses[0]!, type: "TRANSACTION_TYPE_TRON", unsignedTransaction: rawData(to, 20_000_000n) }),
        )
      ).code,
    ).toBe(7);
  });
});

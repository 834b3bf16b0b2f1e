import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from "@solana/web3.js";
import type { Address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSolanaNode, TOKEN_PROGRAM, type SolanaNode } from "../helpers/litesvm-rpc.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import { loggedInCoreClient, until } from "./helpers.js";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const ACCOUNT = { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", addressFormat: "ADDRESS_FORMAT_SOLANA" } as const;
const RECIPIENT = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
/** An SPL mint the operator lists in CHAIN_ASSETS. */
const MINT = Keypair.generate().publicKey.toBase58();
/** The placeholder blockhash a client leaves for Strongroom to fill (32 zero bytes). */
const NO_BLOCKHASH = "11111111111111111111111111111111";

function transfer(from: string, lamports: number, blockhash = NO_BLOCKHASH): string {
  const transaction = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: new PublicKey(RECIPIENT), lamports }),
  );
  return transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
}

describe("sending Solana transactions to a real runtime (litesvm behind JSON-RPC)", () => {
  let node: SolanaNode;
  let server: TestServer;
  let from: string;
  const root = () => server.client();
  const final = (sendTransactionStatusId: string) =>
    until(
      () => root().getSendTransactionStatus({ sendTransactionStatusId }),
      (s) => s.txStatus === "INCLUDED" || s.txStatus === "FAILED",
    );
  const balance = (address: string) => node.svm.getBalance(address as Address) ?? 0n;

  beforeAll(async () => {
    node = await startSolanaNode();
    server = await startTestServer({
      env: {
        CHAIN_RPC_URLS: `${DEVNET}=${node.url}`,
        CHAIN_ASSETS: JSON.stringify({ [DEVNET]: [{ address: MINT, symbol: "USDC", name: "USD Coin", decimals: 6 }] }),
        CHAIN_BROADCAST_POLL_MS: "50",
        STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
        STRONGROOM_WEBHOOK_POLL_MS: "20",
      },
    });
    const { addresses } = await root().createWallet({ walletName: "sol", accounts: [{ ...ACCOUNT, path: "m/44'/501'/0'/0'" }] });
    from = addresses[0]!;
    node.svm.airdrop(from as Address, 10_000_000_000n as never);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await node?.close();
  });

  it("sends through @turnkey/core's solSendTransaction (V1) with the blockhash filled in, to INCLUDED", async () => {
    const core = loggedInCoreClient(
      server,
      { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! },
      server.root.organizationId,
    );
    const before = balance(RECIPIENT);
    const id = await core.solSendTransaction({
      transaction: { unsignedTransaction: transfer(from, 1_000_000), signWith: from, caip2: DEVNET } as never,
    });
    const result = (await core.pollTransactionStatus({ sendTransactionStatusId: id, pollingIntervalMs: 100 })) as {
      txStatus: string;
      solana: { signature: string };
    };
    expect(result.txStatus).toBe("INCLUDED");
    expect(result.solana.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(balance(RECIPIENT) - before).toBe(1_000_000n);
  }, 60_000);

  it("sends through @turnkey/sdk-server's solSendTransaction (V2, signWiths), the cluster named by its alias", async () => {
    const receiver = await startWebhookReceiver();
    try {
      await root().createWebhookEndpoint({
        url: receiver.url,
        name: "sol",
        subscriptions: [{ eventType: "SEND_TRANSACTION_STATUS_UPDATES" }],
      });
      const before = balance(RECIPIENT);
      const { sendTransactionStatusId } = await root().solSendTransaction({
        unsignedTransaction: transfer(from, 2_000),
        signWiths: [from],
        caip2: "solana:devnet" as never,
      });
      const status = await final(sendTransactionStatusId);
      expect(status.txStatus).toBe("INCLUDED");
      expect(balance(RECIPIENT) - before).toBe(2_000n);
      const events = () =>
        receiver.received
          .map((d) => JSON.parse(d.body.toString()) as { msg: Record<string, unknown> })
          .filter((e) => e.msg.sendTransactionStatusId === sendTransactionStatusId);
      await receiver.until(() => events().length === 2);
      expect(events().map((e) => [e.msg.status, e.msg.caip2])).toEqual([
        ["BROADCASTING", DEVNET],
        ["INCLUDED", DEVNET],
      ]);
      expect(events()[1]!.msg.txHash).toBe(status.solana!.signature);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("a transaction the node refuses at preflight ends FAILED with the node's code, error and logs", async () => {
    const { sendTransactionStatusId } = await root().solSendTransaction({
      unsignedTransaction: transfer(from, 10 ** 15),
      signWiths: [from],
      caip2: DEVNET,
    });
    const status = await final(sendTransactionStatusId);
    expect(status.txStatus).toBe("FAILED");
    expect(status.error!.message).toContain("The node refused the transaction at preflight");
    expect(status.error!.solana).toMatchObject({ source: "preflight", rpcCode: -32002 });
    expect(status.error!.solana!.logs!.length).toBeGreaterThan(0);
  }, 60_000);

  it("refuses precisely: sponsorship, an unconfigured cluster, a signer that is not the organization's or not required", async () => {
    const sponsored = await refusal(
      root().solSendTransaction({ unsignedTransaction: transfer(from, 1), signWiths: [from], caip2: DEVNET, sponsor: true }),
    );
    expect(sponsored.message).toContain("sponsor: fee sponsorship needs the hosted service's fee payer");
    const mainnet = await refusal(
      root().solSendTransaction({ unsignedTransaction: transfer(from, 1), signWiths: [from], caip2: "solana:mainnet" as never }),
    );
    expect(mainnet.message).toContain("chain solana:mainnet is not configured on this server; add it to CHAIN_RPC_URLS");
    const stranger = await refusal(
      root().solSendTransaction({ unsignedTransaction: transfer(RECIPIENT, 1), signWiths: [RECIPIENT], caip2: DEVNET }),
    );
    expect(stranger.message).toContain("signWiths[0]:");
    const notRequired = await refusal(
      root().solSendTransaction({ unsignedTransaction: transfer(RECIPIENT, 1), signWiths: [from], caip2: DEVNET }),
    );
    expect(notRequired.message).toContain("not one of the transaction's 1 required signers");
  }, 60_000);
  it("answers the SOL balance and the history of what it sent, transfers decoded", async () => {
    const balances = (await root().getWalletAddressBalances({ address: from, caip2: "solana:devnet" as never })).balances!;
    expect(balances).toEqual([
      {
        caip19: `${DEVNET}/slip44:501`,
        symbol: "SOL",
        name: "Solana",
        decimals: 9,
        balance: balance(from).toString(),
        display: expect.objectContaining({ crypto: expect.stringMatching(/^9\.99/) }),
      },
    ]);
    const { transactions } = await root().listSolTransactionHistory({ address: from, caip2: DEVNET, paginationOptions: { limit: "10" } });
    expect(transactions.length).toBeGreaterThanOrEqual(2);
    expect(transactions[0]).toMatchObject({
      origin: "TURNKEY",
      status: "CONFIRMED",
      feePayer: from,
      signers: [{ address: from, writable: true }],
      fee: { amount: "5000", caip19: `${DEVNET}/slip44:501` },
    });
    expect(transactions.flatMap((t) => t.transfers)).toContainEqual({
      direction: "OUT",
      asset: { caip19: `${DEVNET}/slip44:501`, symbol: "SOL", name: "Solana", decimals: 9 },
      amount: "1000000",
      counterparty: RECIPIENT,
      display: { crypto: "0.001" },
    });
  }, 60_000);

  it("answers the SPL balances of the mints CHAIN_ASSETS lists, read from the cluster; an SPL transfer sent through Strongroom moves them", async () => {
    const [source, destination] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    node.createMint(MINT, 6);
    node.createTokenAccount(source.toBase58(), MINT, from, 5_000_000n);
    node.createTokenAccount(destination.toBase58(), MINT, RECIPIENT, 0n);
    const usdc = async () =>
      (await root().getWalletAddressBalances({ address: from, caip2: DEVNET })).balances!.find((b) => b.symbol === "USDC");
    expect(await usdc()).toEqual({
      caip19: `${DEVNET}/token:${MINT}`,
      symbol: "USDC",
      name: "USD Coin",
      decimals: 6,
      balance: "5000000",
      display: { crypto: "5" },
    });
    // SPL Token's TransferChecked (instruction 12): amount (u64) and the mint's decimals, signed by the owner.
    const data = Buffer.alloc(10);
    data.writeUInt8(12, 0);
    data.writeBigUInt64LE(1_250_000n, 1);
    data.writeUInt8(6, 9);
    const transaction = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: NO_BLOCKHASH }).add(
      new TransactionInstruction({
        programId: new PublicKey(TOKEN_PROGRAM),
        keys: [
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: new PublicKey(MINT), isSigner: false, isWritable: false },
          { pubkey: destination, isSigner: false, isWritable: true },
          { pubkey: new PublicKey(from), isSigner: true, isWritable: false },
        ],
        data,
      }),
    );
    const unsignedTransaction = transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
    const { sendTransactionStatusId } = await root().solSendTransaction({ unsignedTransaction, signWiths: [from], caip2: DEVNET });
    expect((await final(sendTransactionStatusId)).txStatus).toBe("INCLUDED");
    expect(await usdc()).toMatchObject({ balance: "3750000", display: { crypto: "3.75" } });
    // The recipient's token account, read from the runtime itself.
    const received = node.svm.getAccount(destination.toBase58() as Address);
    expect(received.exists && Buffer.from(received.data).readBigUInt64LE(64)).toBe(1_250_000n);
  }, 60_000);
});

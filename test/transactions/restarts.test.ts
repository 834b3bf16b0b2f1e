import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, http, parseEther, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilBinary, startAnvil, type Anvil } from "../helpers/anvil.js";
import { embeddedEnv, initRoot, sdkClient, sharedPostgres } from "../helpers/cluster.js";
import { freePort, startServerProcess } from "../helpers/processes.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer } from "../helpers/server.js";
import { until } from "./helpers.js";

const CAIP2 = "eip155:84532";
const ACCOUNT = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;
const RECIPIENT = "0x4444444444444444444444444444444444444444";
/** Every field given: nothing to ask the node before the decision. */
const FULLY_SPECIFIED = { gasLimit: "21000", maxFeePerGas: "20000000000", maxPriorityFeePerGas: "1000000000" };

/** A TCP relay on loopback in front of the node, which the test takes down (connections refused) and up again. */
async function startRelay(target: number) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const up = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target, "127.0.0.1");
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const close = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on("error", close).on("close", close);
        upstream.on("error", close).on("close", close);
      }).listen(port, "127.0.0.1", resolve);
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await up();
  return { url: `http://127.0.0.1:${port}`, up, down };
}

describe.skipIf(!anvilBinary.path)("the broadcaster through outages and restarts (anvil)", () => {
  let anvil: Anvil;
  let chain: ReturnType<typeof createPublicClient>;
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 84532 });
    chain = createPublicClient({ transport: http(anvil.url) });
  }, 60_000);
  afterAll(async () => anvil?.stop());

  const fund = (address: string) => anvil.rpc("anvil_setBalance", [address, `0x${parseEther("10").toString(16)}`]);

  it("EVM_RPC_URL alone is one chain, its CAIP-2 id read from the node; other chains are refused naming the setting", async () => {
    const server = await startTestServer({ env: { EVM_RPC_URL: anvil.url, EVM_POLL_MS: "60000", CHAIN_BROADCAST_POLL_MS: "50" } });
    try {
      const { addresses } = await server.client().createWallet({ walletName: "w", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/1" }] });
      await fund(addresses[0]!);
      const { sendTransactionStatusId } = await server
        .client()
        .ethSendTransaction({ from: addresses[0]!, caip2: CAIP2, calls: [{ to: RECIPIENT, value: "1" }] });
      expect(
        (
          await until(
            () => server.client().getSendTransactionStatus({ sendTransactionStatusId }),
            (s) => s.txStatus === "INCLUDED",
          )
        ).txStatus,
      ).toBe("INCLUDED");
      const other = await refusal(
        server.client().ethSendTransaction({ from: addresses[0]!, caip2: "eip155:8453", calls: [{ to: RECIPIENT }] }),
      );
      expect(other.message).toContain(
        "caip2: chain eip155:8453 is not configured on this server; add it to CHAIN_RPC_URLS as eip155:8453=<rpc url> (EVM_RPC_URL serves eip155:84532)",
      );
    } finally {
      await server.close();
    }
  }, 120_000);

  it("a node that is down makes the status wait (not fail), and the send lands once it is back", async () => {
    const relay = await startRelay(anvil.port);
    const server = await startTestServer({ env: { CHAIN_RPC_URLS: `${CAIP2}=${relay.url}`, CHAIN_BROADCAST_POLL_MS: "50" } });
    try {
      const { addresses } = await server.client().createWallet({ walletName: "w", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/2" }] });
      const from = addresses[0] as Hex;
      await fund(from);
      const nonce = await chain.getTransactionCount({ address: from });
      await relay.down();
      const { sendTransactionStatusId } = await server.client().ethSendTransaction({
        from,
        caip2: CAIP2,
        nonce: String(nonce),
        ...FULLY_SPECIFIED,
        calls: [{ to: RECIPIENT, value: "7" }],
      });
      // The broadcaster tried, the node did not answer: the send waits, saying why.
      const [waiting] = await until(
        () =>
          server.services.db.query<{ status: string; attempts: number; last_error: string }>(
            "SELECT status, attempts, last_error FROM send_transactions WHERE id = $1",
            [sendTransactionStatusId],
          ),
        ([row]) => (row?.attempts ?? 0) >= 2,
      );
      expect(waiting!.status).toBe("INITIALIZED");
      expect(waiting!.last_error).toContain(`the node of ${CAIP2} did not answer`);
      expect((await server.client().getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe("INITIALIZED");
      await relay.up();
      const final = await until(
        () => server.client().getSendTransactionStatus({ sendTransactionStatusId }),
        (s) => s.txStatus === "INCLUDED" || s.txStatus === "FAILED",
      );
      expect(final.txStatus).toBe("INCLUDED");
      expect((await chain.getTransaction({ hash: final.eth!.txHash as Hex })).nonce).toBe(nonce);
    } finally {
      await server.close();
      await relay.down();
    }
  }, 120_000);

  it("SIGKILL after signing, before any broadcast: after a restart the same transaction lands, once", async () => {
    const relay = await startRelay(anvil.port);
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-tx-"));
    const env = embeddedEnv(dataDir, { CHAIN_RPC_URLS: `${CAIP2}=${relay.url}`, CHAIN_BROADCAST_POLL_MS: "50" });
    try {
      const root = initRoot(env);
      let process = await startServerProcess(env);
      const client = () => sdkClient(process.url, root, root.organizationId);
      const { addresses } = await client().createWallet({ walletName: "w", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/3" }] });
      const from = addresses[0] as Hex;
      await fund(from);
      const nonce = await chain.getTransactionCount({ address: from });
      await relay.down();
      const { sendTransactionStatusId } = await client().ethSendTransaction({
        from,
        caip2: CAIP2,
        nonce: String(nonce),
        ...FULLY_SPECIFIED,
        calls: [{ to: RECIPIENT, value: "11" }],
      });
      expect((await client().getSendTransactionStatus({ sendTransactionStatusId })).txStatus).toBe("INITIALIZED");
      await process.kill();
      await relay.up();
      process = await startServerProcess(env);
      try {
        const final = await until(
          () => client().getSendTransactionStatus({ sendTransactionStatusId }),
          (s) => s.txStatus === "INCLUDED" || s.txStatus === "FAILED",
        );
        expect(final.txStatus).toBe("INCLUDED");
        const mined = await chain.getTransaction({ hash: final.eth!.txHash as Hex });
        expect([mined.nonce, mined.value, mined.to]).toEqual([nonce, 11n, RECIPIENT]);
        expect(await chain.getTransactionCount({ address: from })).toBe(nonce + 1);
      } finally {
        await process.stop();
      }
    } finally {
      await relay.down();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  it.skipIf(!process.env.DATABASE_URL)(
    "two processes on one PostgreSQL give concurrent sends from one address consecutive nonces",
    async () => {
      const database = await sharedPostgres({ CHAIN_RPC_URLS: `${CAIP2}=${anvil.url}`, CHAIN_BROADCAST_POLL_MS: "50" });
      const processes = [];
      try {
        const root = initRoot(database.env);
        processes.push(await startServerProcess(database.env), await startServerProcess(database.env));
        const clients = processes.map((p) => sdkClient(p.url, root, root.organizationId));
        const { addresses } = await clients[0]!.createWallet({ walletName: "w", accounts: [{ ...ACCOUNT, path: "m/44'/60'/0'/0/4" }] });
        const from = addresses[0] as Hex;
        await fund(from);
        const start = await chain.getTransactionCount({ address: from });
        const sent = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            clients[i % 2]!.ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: RECIPIENT, value: String(i + 1) }] }),
          ),
        );
        const finals = await Promise.all(
          sent.map((s) =>
            until(
              () => clients[0]!.getSendTransactionStatus({ sendTransactionStatusId: s.sendTransactionStatusId }),
              (r) => r.txStatus === "INCLUDED" || r.txStatus === "FAILED",
            ),
          ),
        );
        expect(finals.map((f) => f.txStatus)).toEqual(Array(6).fill("INCLUDED"));
        const nonces = await Promise.all(finals.map(async (f) => (await chain.getTransaction({ hash: f.eth!.txHash as Hex })).nonce));
        expect(nonces.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5].map((i) => start + i));
      } finally {
        for (const p of processes) await p.stop();
        await database.drop();
      }
    },
    300_000,
  );
});

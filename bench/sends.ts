/**
 * Sending transactions: eth_send_transaction into a real EVM node (anvil, automine), sends per second and the
 * time from submit to INCLUDED as a client polling get_send_transaction_status sees it.
 *
 *   npm run bench:sends
 */
import { anvilBinary, startAnvil } from "../test/helpers/anvil.js";
import { machine, percentile, startBuiltServerProcess, store } from "./support.js";

const CAIP2 = "eip155:84532";
const RECIPIENT = "0x5555555555555555555555555555555555555555";

async function main() {
  if (!anvilBinary.path) throw new Error(`anvil is not available: ${anvilBinary.missing}`);
  const anvil = await startAnvil({ chainId: 84532 });
  const strongroom = await startBuiltServerProcess({
    CHAIN_RPC_URLS: `${CAIP2}=${anvil.url}`,
    CHAIN_BROADCAST_POLL_MS: "20",
    AUTH_PROXY_PORT: "off",
  });
  try {
    const client = strongroom.client();
    const senders = 4;
    const { addresses } = await client.createWallet({
      walletName: "bench",
      accounts: Array.from({ length: senders }, (_, i) => ({
        curve: "CURVE_SECP256K1" as const,
        pathFormat: "PATH_FORMAT_BIP32" as const,
        path: `m/44'/60'/0'/0/${i}`,
        addressFormat: "ADDRESS_FORMAT_ETHEREUM" as const,
      })),
    });
    for (const address of addresses) await anvil.rpc("anvil_setBalance", [address, "0x56bc75e2d63100000"]);
    const send = (from: string) => client.ethSendTransaction({ from, caip2: CAIP2, calls: [{ to: RECIPIENT, value: "1" }] });
    const untilIncluded = async (id: string) => {
      for (;;) {
        const status = await client.getSendTransactionStatus({ sendTransactionStatusId: id });
        if (status.txStatus === "INCLUDED") return;
        if (status.txStatus === "FAILED") throw new Error(`send ${id} failed: ${status.txError}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    for (let i = 0; i < 20; i++) await untilIncluded((await send(addresses[0]!)).sendTransactionStatusId); // warm-up

    // Submit → INCLUDED, one at a time (nonce, gas and fees filled each time).
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const start = performance.now();
      await untilIncluded((await send(addresses[0]!)).sendTransactionStatusId);
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);

    // Throughput: 400 sends over 16 connections, from one address (nonce races) and from four.
    const throughput = async (from: string[]) => {
      const total = 400;
      let issued = 0;
      const ids: string[] = [];
      const start = performance.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (issued < total) ids.push((await send(from[issued++ % from.length]!)).sendTransactionStatusId);
        }),
      );
      const submitted = performance.now();
      for (const id of ids) await untilIncluded(id);
      const included = performance.now();
      return {
        sendsPerSecond: Math.round(total / ((submitted - start) / 1000)),
        includedPerSecond: Math.round(total / ((included - start) / 1000)),
      };
    };
    const report = {
      machine: machine(),
      store: store(),
      submitToIncludedMs: { p50: +percentile(latencies, 50).toFixed(1), p99: +percentile(latencies, 99).toFixed(1) },
      oneSender: await throughput([addresses[0]!]),
      fourSenders: await throughput(addresses),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await strongroom.stop();
    await anvil.stop();
  }
}

await main();

import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/core";
import { createPublicClient, http, type PublicClient } from "viem";
import { startAnvil, type Anvil } from "../helpers/anvil.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * @turnkey/core's TurnkeyClient, unchanged, as an app uses it once logged in: its API key stamper holds the
 * user's key and its storage answers the active session. `init()` would build that storage from the browser's
 * (it refuses Node), so the two are handed in here; every method then runs as the package ships it.
 */
export function loggedInCoreClient(server: TestServer, key: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string) {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
  const client = new TurnkeyClient({ apiBaseUrl: server.url, organizationId }, stamper as never);
  const session = { organizationId, userId: "", publicKey: key.apiPublicKey, expiry: Date.now() / 1000 + 3600 };
  Object.assign(client as object, {
    storageManager: { getActiveSession: async () => session, getActiveSessionKey: async () => "session" },
  });
  (client as unknown as { httpClient: unknown }).httpClient = client.createHttpClient();
  return client;
}

/** Waits (generously: a loaded machine) until `check` passes. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The chain the EVM tests send on: anvil as Base Sepolia. */
export const BASE_SEPOLIA = "eip155:84532";
/** Where the tests deploy their ERC-20 (test/helpers/evm-token.ts), listed as the chain's asset TKN. */
export const TOKEN = "0x2222222222222222222222222222222222222222" as const;
export const ETHEREUM_ACCOUNT = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
} as const;

type SendStatus = Awaited<ReturnType<ReturnType<TestServer["client"]>["getSendTransactionStatus"]>>;

export interface ChainWorld {
  anvil: Anvil;
  server: TestServer;
  /** viem's client of the node, to read what landed. */
  chain: PublicClient;
  /** A send's status once it is final (included or failed). */
  finalStatus(sendTransactionStatusId: string): Promise<SendStatus>;
  stop(): Promise<void>;
}

/**
 * anvil as Base Sepolia and a test server sending on it (TKN listed as its asset, the broadcaster polling quickly,
 * webhooks to loopback allowed), plus `env`.
 */
export async function startChainWorld(env: Record<string, string> = {}): Promise<ChainWorld> {
  const anvil = await startAnvil({ chainId: 84532 });
  const server = await startTestServer({
    env: {
      CHAIN_RPC_URLS: `${BASE_SEPOLIA}=${anvil.url}`,
      CHAIN_ASSETS: JSON.stringify({ [BASE_SEPOLIA]: [{ address: TOKEN, symbol: "TKN", name: "Test token", decimals: 2 }] }),
      CHAIN_BROADCAST_POLL_MS: "50",
      STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
      STRONGROOM_WEBHOOK_POLL_MS: "20",
      ...env,
    },
  }).catch(async (error: unknown) => {
    await anvil.stop();
    throw error;
  });
  return {
    anvil,
    server,
    chain: createPublicClient({ transport: http(anvil.url) }),
    finalStatus: (sendTransactionStatusId) =>
      until(
        () => server.client().getSendTransactionStatus({ sendTransactionStatusId }),
        (s) => s.txStatus === "INCLUDED" || s.txStatus === "FAILED",
      ),
    async stop() {
      await server.close();
      await anvil.stop();
    },
  };
}

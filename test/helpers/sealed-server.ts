import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { resolveConfig, type SealProvider } from "../../src/config.js";
import type { SealStatus } from "../../src/crypto/keyring/custody.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { sdkClient } from "./cluster.js";
import { freshPostgresDatabase } from "./postgres-database.js";

/**
 * A store that outlives its server, so a test can stop a server and start another on it: a data directory
 * (embedded) or, with DATABASE_URL, a fresh PostgreSQL database. `start` runs a server on it with `env` added.
 */
export async function persistentStore(): Promise<{
  start(env: Record<string, string>): Promise<RunningServer>;
  dataDir: string;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-keyring-"));
  const database = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
  return {
    dataDir,
    databaseUrl: database?.url,
    start: (env) =>
      startServer(
        resolveConfig(
          { dataDir, host: "127.0.0.1", port: 0 },
          {
            ...(database ? { DATABASE_URL: database.url } : {}),
            LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
            AUTH_PROXY_PORT: "0",
            STRONGROOM_KEYRING_POLL_MS: "100",
            ...env,
          },
        ),
      ),
    async drop() {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment of a `strongroom` CLI process on `store`'s data directory or database, with `env` added (no master key but env's). */
export function cliEnvOn(store: { dataDir: string; databaseUrl: string | undefined }, env: Record<string, string>): NodeJS.ProcessEnv {
  const cliEnv: NodeJS.ProcessEnv = { ...process.env, ...env, STRONGROOM_DATA_DIR: store.dataDir, LOG_LEVEL: "warn" };
  if (store.databaseUrl) cliEnv.DATABASE_URL = store.databaseUrl;
  else delete cliEnv.DATABASE_URL;
  if (!env.STRONGROOM_MASTER_KEY) delete cliEnv.STRONGROOM_MASTER_KEY;
  return cliEnv;
}

/** What GET /strongroom/v1/seal-status answers. */
export type SealStatusBody = SealStatus;

/** The seal status of a process its provider unsealed at start (file, pkcs11, awskms): no shares, data key version 1. */
export const unsealedAtStart = (type: SealProvider): SealStatusBody => ({
  type,
  initialized: true,
  sealed: false,
  t: 0,
  n: 0,
  progress: 0,
  keyVersion: 1,
});

/** A root user's API key in its organization: what `init` prints, or initRootOrganization answers. */
export interface RootKey {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey?: string;
}

/** A wallet of one Ethereum account, made by a root user; `sign` signs a fixed payload with it on any server of the store. */
export interface EthereumWallet {
  walletId: string;
  address: string;
  /** An SDK client of the root user against `url`. */
  client(url: string): ReturnType<typeof sdkClient>;
  /** The r of the account's signature over a fixed payload: the same key signs again after a restart, or not. */
  sign(url: string): Promise<string>;
}

/** What every keyring and seal test makes first: a wallet whose key must keep signing across rotations, seals and restores. */
export async function ethereumWallet(url: string, root: RootKey, walletName = "sealed"): Promise<EthereumWallet> {
  if (!root.apiPrivateKey) throw new Error("the root user's API private key is needed to sign");
  const credentials = { apiPublicKey: root.apiPublicKey, apiPrivateKey: root.apiPrivateKey };
  const client = (at: string) => sdkClient(at, credentials, root.organizationId);
  const { walletId, addresses } = await client(url).createWallet({
    walletName,
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
    ],
  });
  const address = addresses[0]!;
  const sign = async (at: string) =>
    (
      await client(at).signRawPayload({
        signWith: address,
        payload: "0x" + "5a".repeat(32),
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      })
    ).r;
  return { walletId, address, client, sign };
}

export async function sealStatus(url: string): Promise<SealStatusBody> {
  return (await (await fetch(`${url}/strongroom/v1/seal-status`)).json()) as SealStatusBody;
}

export async function unseal(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/strongroom/v1/unseal`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** Polls `check` every 50 ms until it holds (at most `timeoutMs`): for what another process's loop does. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every route but seal-status and unseal answers 503 in the API's error shape. */
export async function expectRefusedWhileSealed(server: RunningServer): Promise<void> {
  for (const [method, path] of [
    ["POST", "/public/v1/query/get_whoami"],
    ["POST", "/public/v1/submit/create_wallet"],
    ["GET", "/health"],
    ["GET", "/public/v1/discovery/keys"],
    ["POST", "/strongroom/v1/query/dry_run_activity"],
    ["POST", "/strongroom/v1/submit/seal_server"],
  ] as const) {
    const response = await fetch(`${server.url}${path}`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
    expect(response.status, path).toBe(503);
    const answer = (await response.json()) as { code: number; message: string; details: unknown[] };
    expect(answer.code, path).toBe(14);
    expect(answer.message).toContain("Strongroom is sealed");
    expect(answer.details).toEqual([]);
  }
  expect((await fetch(`${server.authProxyUrl}/v1/account`, { method: "POST", body: "{}" })).status).toBe(503);
}

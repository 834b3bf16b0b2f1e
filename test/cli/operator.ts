import { Turnkey } from "@turnkey/sdk-server";
import { spawn, spawnSync } from "node:child_process";
import { resolveConfig } from "../../src/config.js";
import { initRootOrganization, type InitResult } from "../../src/domains/organizations/init-root-organization.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { cliEntry, repoRoot } from "../helpers/processes.js";

function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete base.DATABASE_URL;
  delete base.STRONGROOM_MASTER_KEY;
  return { ...base, ...env };
}

/** The operator commands run as a user runs them: the CLI in a process of its own, embedded unless `env` says otherwise. */
export function strongroom(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...cliEntry, ...args], { cwd: repoRoot, env: cliEnv(env), encoding: "utf8", timeout: 180_000 });
}

/** `strongroom <args>` without blocking this process's event loop (a server in this process must keep answering). */
export function strongroomAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliEntry, ...args], { cwd: repoRoot, env: cliEnv(env) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

/** A server in this process on `dataDir` (or `env`'s DATABASE_URL), on free loopback ports. */
export async function serve(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer(resolveConfig({ dataDir, host: "127.0.0.1", port: 0 }, { AUTH_PROXY_PORT: "0", LOG_LEVEL: "silent", ...env }));
}

export function clientOf(server: RunningServer, root: InitResult) {
  return new Turnkey({
    apiBaseUrl: server.url,
    apiPublicKey: root.apiPublicKey,
    apiPrivateKey: root.apiPrivateKey!,
    defaultOrganizationId: root.organizationId,
  }).apiClient();
}

export const ETH_ACCOUNT = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
} as const;

/** A signature by the account at `address` over a fixed digest (deterministic: RFC 6979). */
export async function signature(client: ReturnType<typeof clientOf>, address: string): Promise<string> {
  const signed = await client.signRawPayload({
    signWith: address,
    payload: "ab".repeat(32),
    encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
    hashFunction: "HASH_FUNCTION_NO_OP",
  });
  return `${signed.r}${signed.s}${signed.v}`;
}

/** A root organization with a wallet of one Ethereum account, and that account's signature. */
export async function organizationWithWallet(server: RunningServer) {
  const root = await initRootOrganization(server.services, { organizationName: "Operated", userName: "Operator" });
  const client = clientOf(server, root);
  const wallet = await client.createWallet({ walletName: "kept", accounts: [ETH_ACCOUNT] });
  const address = wallet.addresses[0]!;
  return { root, walletId: wallet.walletId, address, signature: await signature(client, address) };
}

export { freshPostgresDatabase } from "../helpers/postgres-database.js";

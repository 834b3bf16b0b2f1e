import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "./processes.js";

const require = createRequire(import.meta.url);

/**
 * anvil from the npm package @foundry-rs/anvil (its binary comes in the platform's optional package). Undefined,
 * with the reason, when it is not installed for this platform or cannot run here: tests then skip and say why.
 */
export const anvilBinary: { path?: string; missing?: string } = (() => {
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
  let path: string;
  try {
    path = join(dirname(require.resolve(`${platformPackage}/package.json`)), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
  } catch {
    return { missing: `${platformPackage} is not installed (npm install, with optional dependencies)` };
  }
  const probe = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 20_000 });
  if (probe.status !== 0) return { missing: `${path} cannot run here: ${probe.error?.message ?? probe.stderr}` };
  return { path };
})();

if (anvilBinary.missing) console.warn(`anvil tests skipped: ${anvilBinary.missing}`);

export type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

export interface Anvil {
  url: string;
  port: number;
  chainId: number;
  rpc: Rpc;
  process: ChildProcess;
  /** Stops the node (SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

export function rpcAt(url: string): Rpc {
  return async <T>(method: string, params: unknown[] = []) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
}

/** A real EVM node on a free loopback port (automine: each transaction is mined as it arrives). */
export async function startAnvil(options: { chainId?: number; port?: number; args?: string[] } = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 84532;
  const port = options.port ?? (await freePort());
  const child = spawn(
    anvilBinary.path!,
    ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId), ...(options.args ?? [])],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const rpc = rpcAt(url);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
    if (
      await rpc<string>("eth_chainId").then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`anvil did not answer within 30 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    port,
    chainId,
    rpc,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

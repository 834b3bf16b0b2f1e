import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { Turnkey } from "@turnkey/sdk-server";
import { request } from "node:http";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { cliEntry, embeddedCliEnv, freePort, repoRoot, runCli } from "../helpers/processes.js";

const baseEnv = embeddedCliEnv;

function spawnCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...cliEntry, ...args], { cwd: repoRoot, env: { ...baseEnv(), ...env } });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function untilHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("did not start");
}

describe("the server process", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-process-"));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("on SIGTERM finishes requests in flight, refuses new connections, exits 0 and frees the data directory", async () => {
    const init = runCli(["init", "--data-dir", dataDir], baseEnv());
    expect(init.status, init.stderr).toBe(0);
    const root = JSON.parse(init.stdout) as { organizationId: string; apiPublicKey: string; apiPrivateKey: string };
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const serve = spawnCli(["serve", "--data-dir", dataDir, "--port", String(port), "--auth-proxy-port", "off"], { LOG_LEVEL: "info" });
    children.push(serve.child);
    await untilHealthy(url, serve.child);
    const api = new Turnkey({
      apiBaseUrl: url,
      apiPublicKey: root.apiPublicKey,
      apiPrivateKey: root.apiPrivateKey,
      defaultOrganizationId: root.organizationId,
    }).apiClient();

    // Load: wallet creations completing while the signal arrives, and one request whose body is still being sent.
    const inFlight = Promise.allSettled(Array.from({ length: 6 }, (_, i) => api.createWallet({ walletName: `w${i}`, accounts: [] })));
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_WALLET",
      timestampMs: String(Date.now()),
      organizationId: root.organizationId,
      parameters: { walletName: "sent slowly", accounts: [] },
    });
    const { stampHeaderName, stampHeaderValue } = await new ApiKeyStamper({
      apiPublicKey: root.apiPublicKey,
      apiPrivateKey: root.apiPrivateKey,
    }).stamp(body);
    const slow = request(`${url}/public/v1/submit/create_wallet`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), [stampHeaderName]: stampHeaderValue },
    });
    const slowAnswer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      slow.on("response", (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode!, body: text }));
      });
      slow.on("error", reject);
    });
    const connected = new Promise<number>((resolve) =>
      slow.once("socket", (socket) => socket.once("connect", () => resolve(socket.localPort!))),
    );
    slow.write(body.slice(0, 20));
    const slowPort = await connected;
    // The server has the request's head (it logs each request as it arrives): the request is in flight.
    await vi.waitFor(
      () => {
        const arrived = serve
          .output()
          .split("\n")
          .some((line) => line.includes("incoming request") && line.includes(`"remotePort":${slowPort}`));
        if (!arrived) throw new Error("the slow request has not reached the server yet");
      },
      { timeout: 60_000, interval: 20 },
    );
    serve.child.kill("SIGTERM");
    while (!serve.output().includes("SIGTERM")) await new Promise((r) => setTimeout(r, 50));

    // A caller arriving while requests drain is refused a connection: it may retry elsewhere at once. The listener
    // closes one turn of the server's event loop after the log line (src/server/drain.ts), which a loaded machine can
    // stretch: a caller connecting in that turn is still taken in, so callers are tried until one is refused, all
    // while the slow request is still in flight.
    const connectOnce = () =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
      });
    let late = await connectOnce();
    for (let tries = 1; late === "connected" && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      late = await connectOnce();
    }
    expect(late).toBe("ECONNREFUSED");

    slow.end(body.slice(20));
    const slowResult = await slowAnswer;
    expect(slowResult.status, slowResult.body).toBe(200);
    expect(JSON.parse(slowResult.body).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const results = await inFlight;
    expect(await serve.exited).toBe(0);
    expect(serve.output()).toContain("SIGTERM");

    // The lock is released: the next start on the same data directory works, and sees what completed.
    const next = spawnCli(["serve", "--data-dir", dataDir, "--port", String(port), "--auth-proxy-port", "off"]);
    children.push(next.child);
    await untilHealthy(url, next.child);
    const { wallets } = await api.getWallets({});
    expect(wallets.map((w) => w.walletName)).toContain("sent slowly");
    expect(wallets.length).toBe(1 + results.filter((r) => r.status === "fulfilled").length);
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  }, 400_000);

  it("refuses a busy port naming the flag that sets it, and runs no auth proxy with --auth-proxy-port off", async () => {
    const blocker: Server = createServer();
    const busy = await freePort();
    await new Promise<void>((resolve) => blocker.listen(busy, "127.0.0.1", resolve));
    try {
      const onApiPort = runCli(["serve", "--data-dir", "memory://", "--port", String(busy), "--auth-proxy-port", "off"], baseEnv());
      expect(onApiPort.status).not.toBe(0);
      expect(onApiPort.stderr).toContain(`127.0.0.1:${busy} is already in use`);
      expect(onApiPort.stderr).toContain("--port");

      const onProxyPort = runCli(["keys", "--data-dir", "memory://"], baseEnv());
      expect(onProxyPort.status).toBe(0);
      const proxyBusy = runCli(["serve", "--data-dir", join(dataDir, "busy"), "--port", "0", "--auth-proxy-port", String(busy)], baseEnv());
      expect(proxyBusy.status).not.toBe(0);
      expect(proxyBusy.stderr).toContain("--auth-proxy-port");
      expect(proxyBusy.stderr).toContain("--auth-proxy-port off");
    } finally {
      blocker.close();
    }
  }, 400_000);

  it("strongroom dev prints .env lines on stdout, with no auth proxy lines when it is off", async () => {
    const dev = spawn(process.execPath, [...cliEntry, "dev", "--port", "0", "--auth-proxy-port", "off"], {
      cwd: repoRoot,
      env: baseEnv(),
    });
    children.push(dev);
    let stdout = "";
    dev.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const deadline = Date.now() + 180_000;
    while (!stdout.includes("SIGNER_PUBLIC_KEY=") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const lines = stdout.trim().split("\n");
    expect(lines.map((l) => l.split("=")[0])).toEqual([
      "ORGANIZATION_ID",
      "API_PUBLIC_KEY",
      "API_PRIVATE_KEY",
      "BASE_URL",
      "SIGNER_PUBLIC_KEY",
    ]);
    const baseUrl = lines.find((l) => l.startsWith("BASE_URL="))!.slice("BASE_URL=".length);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    const exited = new Promise((resolve) => dev.once("exit", resolve));
    dev.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 400_000);
});

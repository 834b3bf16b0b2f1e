import { request as httpRequest } from "node:http";
import { Turnkey } from "@turnkey/sdk-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../src/dev/start-dev-server.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * A request sent with node:http, so that any Host header can be given (a DNS-rebinding page reaches the server
 * by its own host name) and nothing is added to what a browser would send.
 */
function send(dev: DevServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const { hostname, port } = new URL(dev.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: Record<string, unknown> = {};
        try {
          parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          parsed = { text };
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const EVIL_PAGE = "https://evil.example";
const corsHeaderNames = (answer: Answer) => Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"));

describe("the dev server's controls answer no web page", () => {
  let dev: DevServer;
  let local: string;
  const api = () =>
    new Turnkey({
      apiBaseUrl: dev.baseUrl,
      apiPublicKey: dev.apiPublicKey,
      apiPrivateKey: dev.apiPrivateKey,
      defaultOrganizationId: dev.organizationId,
    }).apiClient();

  /** One code in the inbox, one wallet after the seed's state and a clock at its start: what an attack would read or undo. */
  async function somethingToSteal(): Promise<void> {
    await api().initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "victim@example.com", appName: "Acme" } as never);
    await api().createWallet({ walletName: "Made after start", accounts: [] });
  }
  async function nothingChanged(): Promise<void> {
    expect(dev.inbox.messages("victim@example.com")).toHaveLength(1);
    expect((await api().getWallets({})).wallets.map((w) => w.walletName)).toEqual(["Made after start"]);
    expect(dev.clock.offsetSeconds()).toBe(0);
  }

  beforeAll(async () => {
    dev = await startDevServer({ authProxyPort: 0, logLevel: "silent" });
    local = new URL(dev.baseUrl).host;
  }, 180_000);
  afterAll(() => dev?.close());
  beforeEach(async () => {
    await dev.reset();
    await somethingToSteal();
  });

  it("a page on another origin reads no one-time code: no CORS headers, and a simple GET is refused", async () => {
    const read = await send(dev, "GET", "/dev/inbox", { host: local, origin: EVIL_PAGE });
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ code: 7, message: expect.stringContaining("X-Strongroom-Dev") });
    expect(JSON.stringify(read.body)).not.toContain("victim@example.com");
    expect(corsHeaderNames(read)).toEqual([]);

    // The preflight a page would need to send the custom header gets no CORS headers: the browser stops there.
    for (const path of ["/dev/inbox", "/dev/reset", "/dev/clock", "//dev/inbox", "/%64ev/reset"]) {
      const preflight = await send(dev, "OPTIONS", path, {
        host: local,
        origin: EVIL_PAGE,
        "access-control-request-method": path.endsWith("inbox") ? "GET" : "POST",
        "access-control-request-headers": "x-strongroom-dev,content-type",
      });
      expect(corsHeaderNames(preflight), `${path}: ${JSON.stringify(preflight.headers)}`).toEqual([]);
    }
    // Even with the header (a page could not send it), a cross-origin answer carries no CORS headers to read it by.
    const withHeader = await send(dev, "GET", "/dev/inbox", { host: local, origin: EVIL_PAGE, "x-strongroom-dev": "1" });
    expect(corsHeaderNames(withHeader)).toEqual([]);
    await nothingChanged();
  });

  it("a page's simple posts (text/plain, no preflight) neither reset the store, move the clock nor empty the inbox", async () => {
    const plain = { host: local, origin: EVIL_PAGE, "content-type": "text/plain;charset=UTF-8" };
    const reset = await send(dev, "POST", "/dev/reset", plain, "");
    const clock = await send(dev, "POST", "/dev/clock", plain, JSON.stringify({ advanceSeconds: 86_400 }));
    const form = await send(
      dev,
      "POST",
      "/dev/clock",
      { ...plain, "content-type": "application/x-www-form-urlencoded" },
      '{"advanceSeconds": 86400, "x": "="}',
    );
    const empty = await send(dev, "DELETE", "/dev/inbox", { host: local, origin: EVIL_PAGE });
    for (const answer of [reset, clock, form, empty]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body).toMatchObject({ code: 7, details: expect.any(Array) });
      expect(corsHeaderNames(answer)).toEqual([]);
    }
    await nothingChanged();
  });

  it("DNS rebinding (a page's own host name resolved to loopback) is refused by the Host check, header or not", async () => {
    for (const host of ["evil.example", `evil.example:${new URL(dev.baseUrl).port}`, "127.0.0.1.evil.example", "localhost.evil.example"]) {
      const same = { host, origin: `http://${host}`, "x-strongroom-dev": "1", "content-type": "application/json" };
      const read = await send(dev, "GET", "/dev/inbox", same);
      const clock = await send(dev, "POST", "/dev/clock", same, JSON.stringify({ advanceSeconds: 86_400 }));
      const reset = await send(dev, "POST", "/dev/reset", same, "{}");
      const empty = await send(dev, "DELETE", "/dev/inbox", same);
      for (const answer of [read, clock, reset, empty]) {
        expect(answer.status, `${host}: ${JSON.stringify(answer.body)}`).toBe(403);
        expect(answer.body).toMatchObject({ code: 7, message: expect.stringContaining(host) });
      }
      expect(JSON.stringify(read.body)).not.toContain("victim@example.com");
    }
    await nothingChanged();
  });

  it("local tools with the header are served under every loopback name", async () => {
    const port = new URL(dev.baseUrl).port;
    for (const host of [
      local,
      `localhost:${port}`,
      "localhost",
      `app.localhost:${port}`,
      "127.0.0.1",
      `127.8.9.10:${port}`,
      `[::1]:${port}`,
    ]) {
      const read = await send(dev, "GET", "/dev/inbox?to=victim@example.com", { host, "x-strongroom-dev": "1" });
      expect(read.status, `${host}: ${JSON.stringify(read.body)}`).toBe(200);
      expect((read.body.messages as unknown[]).length).toBe(1);
    }
    const clock = await send(
      dev,
      "POST",
      "/dev/clock",
      { host: local, "x-strongroom-dev": "1", "content-type": "application/json" },
      JSON.stringify({ advanceSeconds: 60 }),
    );
    expect(clock.status).toBe(200);
    expect(dev.clock.offsetSeconds()).toBe(60);
    const reset = await send(dev, "POST", "/dev/reset", { host: local, "x-strongroom-dev": "1" });
    expect(reset.status).toBe(200);
    expect(dev.clock.offsetSeconds()).toBe(0);
    expect((await api().getWallets({})).wallets).toEqual([]);
  });

  it("the API and the auth proxy keep their CORS for browser apps", async () => {
    const preflight = await send(dev, "OPTIONS", "/public/v1/query/whoami", {
      host: local,
      origin: EVIL_PAGE,
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-stamp,content-type",
    });
    expect(preflight.headers["access-control-allow-origin"]).toBe(EVIL_PAGE);
    const proxy = new URL(dev.authProxyUrl!);
    const proxyAnswer = await fetch(`${proxy.origin}/v1/wallet_kit_client_params`, {
      method: "POST",
      headers: { origin: EVIL_PAGE, "x-auth-proxy-config-id": dev.authProxyConfigId!, "content-type": "application/json" },
      body: "{}",
    });
    expect(proxyAnswer.status).toBe(200);
    expect(proxyAnswer.headers.get("access-control-allow-origin")).toBe(EVIL_PAGE);
  });
});

describe("STRONGROOM_DEV_ALLOWED_HOSTS", () => {
  let dev: DevServer;
  beforeAll(async () => {
    dev = await startDevServer({ logLevel: "silent", allowedHosts: ["strongroom", "dev.internal"] });
  }, 180_000);
  afterAll(() => dev?.close());

  it("adds host names (a container's service name) to the loopback names, and only those", async () => {
    const served = await send(dev, "GET", "/dev/clock", { host: "strongroom:8080", "x-strongroom-dev": "1" });
    expect(served.status).toBe(200);
    expect((await send(dev, "GET", "/dev/clock", { host: "DEV.internal", "x-strongroom-dev": "1" })).status).toBe(200);
    const other = await send(dev, "GET", "/dev/clock", { host: "strongroom.evil.example", "x-strongroom-dev": "1" });
    expect(other.status).toBe(403);
  });
});

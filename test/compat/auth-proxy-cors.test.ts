import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const PAGE = "https://app.example.com";

/** A POST as a browser page at `origin` sends it to the auth proxy. */
async function fromPage(server: TestServer, path: string, origin: string, configId?: string): Promise<Response> {
  return fetch(`${server.authProxyUrl}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin, ...(configId ? { "X-Auth-Proxy-Config-Id": configId } : {}) },
    body: "{}",
  });
}

/** What the page may read: the status and body, only when the answer names its origin. */
async function readableBy(origin: string, response: Response) {
  expect(response.headers.get("access-control-allow-origin")).toBe(origin);
  expect(response.headers.get("vary")).toContain("Origin");
  return { status: response.status, body: (await response.json()) as { code: number; message: string } };
}

describe("auth proxy refusals carry CORS headers, so the page that caused them can read them", () => {
  let server: TestServer;
  let configId: string;

  beforeAll(async () => {
    server = await startTestServer();
    expect((await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {})).status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      allowedOrigins: [PAGE],
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => server.close());

  it("a preflight from any page is answered with the headers the SDK sends", async () => {
    const response = await fetch(`${server.authProxyUrl}/v1/otp_init_v2`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://elsewhere.example.org",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-auth-proxy-config-id",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://elsewhere.example.org");
    expect(response.headers.get("access-control-allow-headers")).toContain("X-Auth-Proxy-Config-ID");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("an allowed page reads its answer; no config header, an unknown config id and a disallowed origin are refused, readably", async () => {
    const allowed = await readableBy(PAGE, await fromPage(server, "/v1/wallet_kit_config", PAGE, configId));
    expect(allowed.status).toBe(200);

    const missing = await readableBy(PAGE, await fromPage(server, "/v1/wallet_kit_config", PAGE));
    expect(missing.status).toBe(401);
    expect(missing.body.message).toContain("X-Auth-Proxy-Config-Id");

    const unknown = await readableBy(PAGE, await fromPage(server, "/v1/wallet_kit_config", PAGE, "no-such-config"));
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toContain('"no-such-config"');

    const evil = "https://evil.example.com";
    const disallowed = await readableBy(evil, await fromPage(server, "/v1/wallet_kit_config", evil, configId));
    expect(disallowed.status).toBe(403);
    expect(disallowed.body.message).toContain(`origin ${evil} is not an allowed origin`);

    // A refusal after the origin was allowed (bad input) is readable too, and names only that origin.
    const badInput = await readableBy(PAGE, await fromPage(server, "/v1/otp_init_v2", PAGE, configId));
    expect(badInput.status).toBe(400);
  });

  it("a request without Origin (not a browser) gets no CORS header", async () => {
    const response = await fetch(`${server.authProxyUrl}/v1/wallet_kit_config`, {
      method: "POST",
      headers: { "X-Auth-Proxy-Config-Id": "no-such-config" },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a disabled config is refused readably", async () => {
    expect((await submitAsRoot(server, "disable_auth_proxy", "ACTIVITY_TYPE_DISABLE_AUTH_PROXY", {})).status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );
    const disabled = await readableBy(PAGE, await fromPage(server, "/v1/wallet_kit_config", PAGE, configId));
    expect(disabled.status).toBe(403);
    expect(disabled.body.message).toContain("disabled");
  });
});

describe("auth proxy rate limits are readable by the page", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_PROXY_REQUESTS_PER_ADDRESS: "2" } });
  });
  afterAll(async () => server.close());

  it("the 429 carries Access-Control-Allow-Origin and exposes Retry-After", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await fromPage(server, "/v1/wallet_kit_config", PAGE, "no-such-config");
      statuses.push(last.status);
      if (i < 2) await last.body?.cancel();
    }
    expect(statuses).toEqual([401, 401, 429]);
    const limited = await readableBy(PAGE, last!);
    expect(limited.body.message).toContain("client address");
    expect(last!.headers.get("retry-after")).toMatch(/^[0-9]+$/);
    expect(last!.headers.get("access-control-expose-headers")).toContain("Retry-After");
  });
});

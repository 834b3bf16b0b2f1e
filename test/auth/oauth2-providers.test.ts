import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateWithProvider } from "../../src/auth/oauth2-providers.js";
import type { OAuthSettings } from "../../src/config.js";
import { ApiError, GrpcCode } from "../../src/errors.js";

/** A provider on loopback whose answers each test sets: the failure modes a real provider has. */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

describe("OAuth 2.0 provider calls", () => {
  let http: Server;
  let base: string;
  let onToken: Handler;
  let onUserInfo: Handler;
  const exchange = {
    clientId: "client id/1",
    clientSecret: "p@ss word:secret",
    authCode: "the-auth-code-123",
    redirectUri: "https://app.example/cb",
    codeVerifier: "verifier-0123456789",
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

  beforeAll(async () => {
    http = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => (req.url === "/token" ? onToken : onUserInfo)(req, body, res));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  const settings = (overrides: Partial<OAuthSettings["providers"]["x"]> = {}): OAuthSettings => {
    const endpoints = { tokenUrl: `${base}/token`, userInfoUrl: `${base}/me`, ...overrides };
    return { oidcIssuers: [], timeoutMs: 500, providers: { x: endpoints, discord: endpoints } };
  };

  async function failure(promise: Promise<unknown>): Promise<ApiError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  it("sends the code, verifier and redirect URI with RFC 6749 Basic client authentication, and reads X's data.id", async () => {
    let seen: { authorization?: string; form?: URLSearchParams; bearer?: string } = {};
    onToken = (req, body, res) => {
      seen = { authorization: req.headers.authorization, form: new URLSearchParams(body) };
      json(res, 200, { access_token: "access-1", token_type: "bearer" });
    };
    onUserInfo = (req, _body, res) => {
      seen.bearer = req.headers.authorization;
      json(res, 200, { data: { id: "42", username: "someone" } });
    };
    const identity = await authenticateWithProvider(settings(), "OAUTH2_PROVIDER_X", exchange);
    expect(identity).toEqual({ subject: "x:42", accessToken: "access-1" });
    expect(Buffer.from(seen.authorization!.replace("Basic ", ""), "base64").toString()).toBe("client+id%2F1:p%40ss+word%3Asecret");
    expect(Object.fromEntries(seen.form!)).toEqual({
      grant_type: "authorization_code",
      code: exchange.authCode,
      redirect_uri: exchange.redirectUri,
      code_verifier: exchange.codeVerifier,
      client_id: exchange.clientId,
    });
    expect(seen.bearer).toBe("Bearer access-1");
  });

  it("a refusal names the provider and its error, with the code and secret redacted", async () => {
    onToken = (_req, _body, res) =>
      json(res, 400, { error: "invalid_grant", error_description: `code ${exchange.authCode} for ${exchange.clientSecret} is invalid` });
    const error = await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_DISCORD", exchange));
    expect(error.code).toBe(GrpcCode.FAILED_PRECONDITION);
    expect(error.message).toBe(
      "Discord refused the authorization code (HTTP 400): invalid_grant: code [redacted] for [redacted] is invalid",
    );

    onToken = (_req, _body, res) => json(res, 502, "<html>bad gateway</html>");
    expect((await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_X", exchange))).message).toBe(
      "X refused the authorization code (HTTP 502): <html>bad gateway</html>",
    );

    onToken = (_req, _body, res) => json(res, 200, { token_type: "bearer" });
    expect((await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_X", exchange))).message).toBe(
      "X token endpoint answered without an access_token",
    );
  });

  it("a user-info answer without the id, a refused access token, an unreachable or silent provider each fail clearly", async () => {
    onToken = (_req, _body, res) => json(res, 200, { access_token: "access-2" });
    onUserInfo = (_req, _body, res) => json(res, 200, { id: "not where X puts it" });
    expect((await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_X", exchange))).message).toBe(
      "X user-info endpoint answered without the user's id (data.id)",
    );

    onUserInfo = (_req, _body, res) => json(res, 401, { message: "401: Unauthorized", code: 0 });
    const refused = await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_DISCORD", exchange));
    expect(refused.message).toBe("Discord user-info endpoint refused the access token (HTTP 401): 401: Unauthorized");

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/token`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await failure(authenticateWithProvider(settings({ tokenUrl: closedUrl }), "OAUTH2_PROVIDER_X", exchange));
    expect(unreachable.code).toBe(GrpcCode.UNAVAILABLE);
    expect(unreachable.message).toContain(`X token endpoint ${closedUrl} could not be reached`);

    onToken = () => undefined; // never answers
    const silent = await failure(authenticateWithProvider(settings(), "OAUTH2_PROVIDER_X", exchange));
    expect(silent.message).toBe(`X token endpoint ${base}/token could not be reached: no answer within 500 ms`);
  });
});

import { p256 } from "@noble/curves/nist.js";
import { createLocalJWKSet, jwtVerify } from "jose";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueOidcToken, loginNonce, oidcJwks, openIdConfiguration, verifyOidcToken } from "../../src/auth/oidc.js";
import { resolveConfig } from "../../src/config.js";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";
import { ApiError, GrpcCode } from "../../src/errors.js";

describe("Strongroom's OIDC tokens and issuer configuration", () => {
  const signer = serverKeyFromSecret(p256.utils.randomSecretKey());
  let http: Server;
  let liar: string;

  beforeAll(async () => {
    // An "issuer" whose discovery document names another issuer: its tokens must not be trusted.
    http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ issuer: "https://someone-else.example", jwks_uri: "https://someone-else.example/jwks" }));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    liar = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => http.close(() => resolve())));

  const services = (issuer: string, oidcIssuers: string[] = []) => ({
    signer,
    oauth: { issuer, oidcIssuers, timeoutMs: 1000, providers: resolveConfig({}, {}).oauth.providers },
  });

  it("matches the documented nonce test vector", () => {
    expect(loginNonce("0394e549c71fa99dd5cf752fba623090be314949b74e4cdf7ca72031dd638e281a")).toBe(
      "1663bba492a323085b13895634a3618792c4ec6896f3c34ef3c26396df22ef82",
    );
  });

  it("issues ES256 tokens that verify against the published JWKS and are accepted back, until they expire", async () => {
    const issuer = "https://strongroom.example";
    const now = new Date();
    const token = await issueOidcToken(services(issuer), { sub: "discord:1", aud: "client", nonce: "abc" }, now);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(await oidcJwks(signer)), { issuer, audience: "client" });
    expect(payload).toMatchObject({ iss: issuer, sub: "discord:1", aud: "client", nonce: "abc" });
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: (await oidcJwks(signer)).keys[0]!.kid });
    expect(openIdConfiguration(issuer)).toMatchObject({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ["ES256"],
    });

    const verified = await verifyOidcToken(services(issuer), token, now);
    expect(verified).toEqual({
      iss: issuer,
      sub: "discord:1",
      audiences: ["client"],
      nonce: "abc",
      // Spent by this key until the token expires, with the clock tolerance the verification allows.
      replayKey: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: new Date((payload.exp! + 30) * 1000),
    });
    // The same token always has the same replay key: a second use is recognised.
    expect((await verifyOidcToken(services(issuer), token, now)).replayKey).toBe(verified.replayKey);
    const later = new Date(now.getTime() + 6 * 60_000);
    await expect(verifyOidcToken(services(issuer), token, later)).rejects.toThrow(/oidcToken: the token expired at/);
    // Another Strongroom (another signer) with the same issuer URL does not accept it.
    const other = { ...services(issuer), signer: serverKeyFromSecret(p256.utils.randomSecretKey()) };
    await expect(verifyOidcToken(other, token, now)).rejects.toThrow(/the signature does not verify/);
    await expect(verifyOidcToken(services(issuer), "not-a-jwt", now)).rejects.toThrow(/oidcToken: not a decodable JWT/);
  });

  it("refuses an issuer whose discovery document names another issuer", async () => {
    const foreign = await issueOidcToken(services(liar), { sub: "s", aud: "a", nonce: "n" }, new Date());
    const error = await verifyOidcToken(services("https://strongroom.example", [liar]), foreign, new Date()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(GrpcCode.UNAVAILABLE);
    expect((error as ApiError).message).toContain(`OIDC discovery of issuer ${liar}`);
    expect((error as ApiError).message).toContain("does not name that issuer");
  });

  it("reads the OAuth settings from the environment: issuers without trailing slashes, provider endpoints, refusing non-URLs", () => {
    const config = resolveConfig(
      {},
      {
        STRONGROOM_PUBLIC_URL: "https://vault.example/",
        OIDC_ISSUERS: "https://accounts.google.com/, https://idp.example/realms/x",
        OAUTH2_X_TOKEN_URL: "http://127.0.0.1:1/t",
      },
    );
    expect(config.oauth.publicUrl).toBe("https://vault.example");
    expect(config.oauth.oidcIssuers).toEqual(["https://accounts.google.com", "https://idp.example/realms/x"]);
    expect(config.oauth.providers.x).toEqual({ tokenUrl: "http://127.0.0.1:1/t", userInfoUrl: "https://api.x.com/2/users/me" });
    expect(config.oauth.providers.discord.tokenUrl).toBe("https://discord.com/api/oauth2/token");
    expect(config.oauth.timeoutMs).toBe(10_000);
    expect(() => resolveConfig({}, { OIDC_ISSUERS: "accounts.google.com" })).toThrow(/OIDC_ISSUERS: "accounts.google.com" is not a URL/);
    expect(() => resolveConfig({}, { OAUTH2_DISCORD_USERINFO_URL: "ftp://discord.example/me" })).toThrow(
      /OAUTH2_DISCORD_USERINFO_URL: .* must be an http\(s\) URL/,
    );
  });
});

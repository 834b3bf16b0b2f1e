import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityDefinitions } from "../../src/pipeline/registry.js";
import { compilePolicyExpression, isPolicySyntaxError } from "../../src/policy/language/index.js";
import { queryDefinitions } from "../../src/pipeline/registry.js";
import { account } from "../../src/auth-proxy/endpoints/account.js";
import { oauth2Authenticate, oauthLogin } from "../../src/auth-proxy/endpoints/oauth.js";
import { otpInit, otpInitV2, otpLoginV1, otpLoginV2, otpVerify, otpVerifyV2 } from "../../src/auth-proxy/endpoints/otp.js";
import { signupV1, signupV2 } from "../../src/auth-proxy/endpoints/signup.js";
import { walletKitClientParams, walletKitConfig } from "../../src/auth-proxy/endpoints/wallet-kit.js";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Property-based tests over what a client controls: request bodies (signed, so they reach
 * validation), stamp headers, and policy expressions. Whatever is sent: never a 5xx, always the
 * API's error shape with the HTTP status of its gRPC code, and nothing written on a refusal.
 * Run counts are bounded (and printed) so the file stays well under a minute; STRONGROOM_PROPERTY_SCALE multiplies
 * every one of them for a long run (15 gives about 100,000 inputs; SECURITY.md has the figures).
 */
const SCALE = Number(process.env.STRONGROOM_PROPERTY_SCALE ?? 1);
const BASE_RUNS = { bodies: 300, queries: 150, stamps: 200, policiesHttp: 100, parser: 3000, grammar: 3000, authProxy: 300 };
const RUNS = Object.fromEntries(Object.entries(BASE_RUNS).map(([name, runs]) => [name, Math.round(runs * SCALE)])) as typeof BASE_RUNS;
const TIMEOUT_MS = 120_000 * Math.max(1, SCALE);
const HTTP_STATUS_OF_CODE: Record<number, number> = { 3: 400, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 16: 401 };

describe("property-based: bodies, stamps, policy expressions", () => {
  let server: TestServer;
  const tried: Record<string, number> = {};
  const signed = (body: string) => ({ "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) });

  /** A refusal in the API's error shape, with the HTTP status its gRPC code maps to. */
  function expectErrorShape(status: number, json: Record<string, unknown>, context: string): void {
    expect(status, context).toBeLessThan(500);
    expect(json, context).toEqual({ code: expect.any(Number), message: expect.any(String), details: expect.any(Array) });
    // 413 (body too large) is the one status not derived from the code.
    if (status !== 413) expect(status, context).toBe(HTTP_STATUS_OF_CODE[json.code as number]);
  }

  // A long run shares the machine with its own load: starting the server may take longer than the default hook timeout.
  beforeAll(async () => {
    server = await startTestServer();
  }, TIMEOUT_MS);
  afterAll(async () => {
    process.stdout.write(`[properties] inputs tried: ${JSON.stringify(tried)}\n`);
    await server.close();
  });

  const jsonish = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.dictionary(
      fc.constantFrom(
        "userName",
        "walletName",
        "walletId",
        "userIds",
        "accounts",
        "apiKeys",
        "policyName",
        "effect",
        "condition",
        "fingerprint",
        "signWith",
        "payload",
        "threshold",
        "organizationId",
        "__proto__",
        "constructor",
      ),
      fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom("\u0000", "a\u0000b", "'; DROP TABLE users; --", "../../etc/passwd", "%2e%2e%2f", "x".repeat(5000)),
      ),
      { maxKeys: 5 },
    ),
  );

  it(
    "never answers a signed activity body with a 5xx, and a refused one changes nothing",
    async () => {
      const organizationId = () => server.root.organizationId;
      const body = fc.oneof(
        // Well-formed envelope, arbitrary parameters: exercises every operation's schema and handler.
        fc
          .record({ definition: fc.constantFrom(...activityDefinitions), parameters: jsonish, mistype: fc.boolean() })
          .map(({ definition, parameters, mistype }) => ({
            operation: definition.operation,
            body: JSON.stringify({
              type: mistype ? "ACTIVITY_TYPE_CREATE_USERS" : definition.type,
              timestampMs: String(Date.now()),
              organizationId: organizationId(),
              parameters,
            }),
          })),
        // Arbitrary JSON, or arbitrary text, anywhere.
        fc
          .record({
            definition: fc.constantFrom(...activityDefinitions),
            value: fc.oneof(
              fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
              fc.string({ maxLength: 200, unit: "binary" }),
            ),
          })
          .map(({ definition, value }) => ({
            operation: definition.operation,
            body: value,
          })),
      );
      await fc.assert(
        fc.asyncProperty(body, async ({ operation, body }) => {
          tried.activityBodies = (tried.activityBodies ?? 0) + 1;
          const before = await rowCounts(server.services.db);
          const { status, json } = await post(`${server.url}/public/v1/submit/${operation}`, body, signed(body));
          if (status === 200) return; // a valid request, by chance: it may write
          expectErrorShape(status, json, `${operation} ${body.slice(0, 200)}`);
          expect(await rowCounts(server.services.db), `${operation} ${body.slice(0, 200)}`).toEqual(before);
        }),
        { numRuns: RUNS.bodies },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "never answers a signed query body with a 5xx",
    async () => {
      const body = fc.record({ definition: fc.constantFrom(...queryDefinitions), extra: jsonish }).map(({ definition, extra }) => ({
        operation: definition.operation,
        body: JSON.stringify({
          ...(typeof extra === "object" && extra !== null && !Array.isArray(extra) ? extra : { extra }),
          organizationId: server.root.organizationId,
        }),
      }));
      await fc.assert(
        fc.asyncProperty(body, async ({ operation, body }) => {
          tried.queryBodies = (tried.queryBodies ?? 0) + 1;
          const { status, json } = await post(`${server.url}/public/v1/query/${operation}`, body, signed(body));
          if (status !== 200) expectErrorShape(status, json, `${operation} ${body.slice(0, 200)}`);
        }),
        { numRuns: RUNS.queries },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "refuses arbitrary stamp headers with 400 or 401 (403 for X-Session on a submit) in the error shape, writing nothing",
    async () => {
      const stampObject = fc.record(
        {
          publicKey: fc.oneof(
            fc.constant(server?.root.apiPublicKey ?? ""),
            fc.constantFrom("02\u0000ab", "'; DROP TABLE api_keys; --", "../".repeat(50), "f".repeat(10_000)),
            fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 140 }),
            fc.string(),
          ),
          scheme: fc.oneof(
            fc.constantFrom(
              "SIGNATURE_SCHEME_TK_API_P256",
              "SIGNATURE_SCHEME_TK_API_SECP256K1",
              "SIGNATURE_SCHEME_TK_API_ED25519",
              "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191",
            ),
            fc.string(),
          ),
          signature: fc.oneof(fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 160 }), fc.string(), fc.integer()),
        },
        { requiredKeys: [] },
      );
      const header = fc.oneof(
        fc.record({ name: fc.constant("X-Stamp"), value: stampObject.map((s) => Buffer.from(JSON.stringify(s)).toString("base64url")) }),
        fc.record({ name: fc.constantFrom("X-Stamp", "X-Stamp-Webauthn", "X-Session"), value: fc.string({ maxLength: 300 }) }),
        fc.record({
          name: fc.constant("X-Stamp"),
          value: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")),
        }),
        fc.record({
          name: fc.constant("X-Stamp-Webauthn"),
          value: fc
            .dictionary(fc.constantFrom("credentialId", "clientDataJson", "authenticatorData", "signature"), fc.string())
            .map((v) => JSON.stringify(v)),
        }),
      );
      await fc.assert(
        fc.asyncProperty(header, fc.boolean(), async ({ name, value }, activity) => {
          tried.stampHeaders = (tried.stampHeaders ?? 0) + 1;
          // Header values must be visible ASCII for fetch; anything else is refused by the client, not sent.
          const headerValue = value.replace(/[^\x20-\x7e]/g, "");
          const before = await rowCounts(server.services.db);
          const body = activity
            ? JSON.stringify({
                type: "ACTIVITY_TYPE_CREATE_USER_TAG",
                timestampMs: String(Date.now()),
                organizationId: server.root.organizationId,
                parameters: { userTagName: "stamped", userIds: [] },
              })
            : JSON.stringify({ organizationId: server.root.organizationId });
          const { status, json } = await post(`${server.url}/public/v1/${activity ? "submit/create_user_tag" : "query/whoami"}`, body, {
            [name]: headerValue,
          });
          expectErrorShape(status, json, `${name}: ${headerValue.slice(0, 120)}`);
          // A read-only session can never submit: that is refused (403) before the token is even read.
          expect(name === "X-Session" && activity ? [403] : [400, 401]).toContain(status);
          expect(await rowCounts(server.services.db)).toEqual(before);
        }),
        { numRuns: RUNS.stamps },
      );
    },
    TIMEOUT_MS,
  );

  // Fragments of the policy language, so generated expressions get past the lexer and deep into the parser and checker.
  const token = fc.constantFrom(
    "activity",
    "activity.type",
    "activity.resource",
    "approvers",
    "wallet",
    "wallet_account.address",
    "eth.tx.value",
    "eth.tx.data[0..4]",
    "solana.tx.transfers",
    "credentials",
    "user",
    "x",
    ".any(",
    ".all(",
    ".filter(",
    ".count()",
    ".contains(",
    ".startsWith(",
    ".length",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "!",
    "in",
    "(",
    ")",
    "[",
    "]",
    "..",
    ",",
    "'",
    "'USER'",
    "'0x'",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "99999999999999999999999999",
    "Timestamp(",
    "CronSpan(",
    "'2024-01-01T00:00:00Z'",
    "'* * * * *'",
    " ",
    "\\",
    "\u0000",
    "é",
    '"',
  );
  const expression = fc.array(token, { maxLength: 30 }).map((parts) => parts.join(""));

  it("parses any string into an expression or a PolicySyntaxError, nothing else", { timeout: TIMEOUT_MS }, () => {
    for (const [name, source, runs] of [
      ["parserArbitrary", fc.string({ maxLength: 300, unit: "grapheme" }), RUNS.parser],
      ["parserGrammar", expression, RUNS.grammar],
    ] as const) {
      fc.assert(
        fc.property(source, fc.constantFrom("condition", "consensus", "time" as const), (text, field) => {
          tried[name] = (tried[name] ?? 0) + 1;
          try {
            compilePolicyExpression(text, field);
          } catch (error) {
            if (!isPolicySyntaxError(error)) throw error;
          }
        }),
        { numRuns: runs },
      );
    }
  });

  it(
    "answers create_policy with any condition and consensus with 200 or 400 INVALID_POLICY, writing nothing on refusal",
    async () => {
      await fc.assert(
        fc.asyncProperty(expression, expression, async (condition, consensus) => {
          tried.policiesOverHttp = (tried.policiesOverHttp ?? 0) + 1;
          const before = await rowCounts(server.services.db);
          const body = JSON.stringify({
            type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
            timestampMs: String(Date.now()),
            organizationId: server.root.organizationId,
            parameters: { policyName: `p ${Math.random()}`, effect: "EFFECT_DENY", condition: condition || "false", consensus, notes: "" },
          });
          const { status, json } = await post(`${server.url}/public/v1/submit/create_policy`, body, signed(body));
          if (status === 200) {
            expect((json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
            return;
          }
          expectErrorShape(status, json, `condition ${condition} consensus ${consensus}`);
          expect(status).toBe(400);
          expect(await rowCounts(server.services.db)).toEqual(before);
        }),
        { numRuns: RUNS.policiesHttp },
      );
    },
    TIMEOUT_MS,
  );
});

describe("property-based: the auth proxy", () => {
  let server: TestServer;
  let configId: string;
  const tried = { authProxyRequests: 0 };
  const statuses: Record<number, number> = {};

  beforeAll(async () => {
    // Budgets out of the way, so generated requests reach the endpoints rather than the rate limit.
    server = await startTestServer({
      env: { AUTH_PROXY_REQUESTS_PER_ADDRESS: "1000000000", AUTH_PROXY_REQUESTS_PER_CONFIG: "1000000000" },
    });
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      sessionExpirationSeconds: 1200,
      otpLength: 6,
      otpAlphanumeric: false,
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => {
    process.stdout.write(`[properties] auth proxy inputs tried: ${JSON.stringify(tried)}, statuses: ${JSON.stringify(statuses)}\n`);
    await server.close();
  });

  const paths = [
    account,
    oauthLogin,
    oauth2Authenticate,
    otpInit,
    otpInitV2,
    otpVerify,
    otpVerifyV2,
    otpLoginV1,
    otpLoginV2,
    signupV1,
    signupV2,
    walletKitConfig,
    walletKitClientParams,
  ].map((endpoint) => endpoint.path);
  const field = fc.constantFrom(
    "email",
    "otpType",
    "contact",
    "otpId",
    "otpCode",
    "publicKey",
    "verificationToken",
    "oidcToken",
    "providerName",
    "userName",
    "userEmail",
    "userPhoneNumber",
    "apiKeys",
    "authenticators",
    "oauthProviders",
    "wallet",
    "appName",
    "sessionLengthSeconds",
    "organizationId",
    "invalidateExisting",
    "filterType",
    "filterValue",
    "authCode",
    "codeVerifier",
    "nonce",
    "clientId",
    "redirectUri",
    "__proto__",
  );
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(
      "OTP_TYPE_EMAIL",
      "OTP_TYPE_SMS",
      "someone@example.com",
      "+15555550100",
      "02" + "ab".repeat(32),
      "eyJhbGciOiJub25lIn0.e30.",
      "\u0000",
      "'; DROP TABLE users; --",
      "x".repeat(5000),
    ),
  );

  it("never answers with a 5xx, and refuses in the API's error shape", { timeout: TIMEOUT_MS }, async () => {
    const request = fc.record({
      path: fc.constantFrom(...paths),
      header: fc.oneof(
        fc.constant(() => configId),
        fc.string({ maxLength: 80 }).map((s) => () => s),
      ),
      body: fc.oneof(
        fc.dictionary(field, value, { maxKeys: 6 }).map((v) => JSON.stringify(v)),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        fc.string({ maxLength: 200, unit: "binary" }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ path, header, body }) => {
        tried.authProxyRequests++;
        // Header values must be visible ASCII for fetch; anything else is refused by the client, not sent.
        const headerValue = header().replace(/[^\x20-\x7e]/g, "");
        const { status, json } = await post(`${server.authProxyUrl}${path}`, body, { "X-Auth-Proxy-Config-Id": headerValue });
        statuses[status] = (statuses[status] ?? 0) + 1;
        const context = `${path} [${headerValue}] ${body.slice(0, 200)}`;
        expect(status, context).toBeLessThan(500);
        if (status !== 200)
          expect(json, context).toEqual({ code: expect.any(Number), message: expect.any(String), details: expect.any(Array) });
      }),
      { numRuns: RUNS.authProxy },
    );
  });
});

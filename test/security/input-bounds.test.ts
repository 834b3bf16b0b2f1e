import { generateP256KeyPair } from "@turnkey/crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDuplicateKeys } from "../../src/schema/duplicate-keys.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const HUGE = ["9007199254740991", "9999999999999999999", "315360000000"];

describe("lifetimes in seconds are bounded: a huge value is a 400 naming the field, nothing written", () => {
  let server: TestServer;
  let userId: string;
  const send = (operation: string, type: string, parameters: unknown) => {
    const body = activityBody(type, server.root.organizationId, parameters);
    return post(`${server.url}/public/v1/submit/${operation}`, body, {
      "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
    });
  };
  beforeAll(async () => {
    server = await startTestServer();
    expect((await send("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {})).status).toBe(200);
    userId = (
      await server.client().createUsers({
        users: [{ userName: "erin", userEmail: "erin@example.com", userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
      })
    ).userIds[0]!;
  });
  afterAll(async () => server.close());

  it("refuses each huge expirationSeconds with 400 naming the field", async () => {
    const target = () => generateP256KeyPair().publicKeyUncompressed;
    const apiKey = (expirationSeconds: string) => ({
      apiKeyName: "k",
      publicKey: generateP256KeyPair().publicKey,
      curveType: "API_KEY_CURVE_P256",
      expirationSeconds,
    });
    const requests = (value: string): Array<[string, string, unknown, string]> => [
      ["create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", { userId, apiKeys: [apiKey(value)] }, "apiKeys[0].expirationSeconds"],
      [
        "create_users",
        "ACTIVITY_TYPE_CREATE_USERS_V4",
        { users: [{ userName: "u", userTags: [], apiKeys: [apiKey(value)], authenticators: [], oauthProviders: [] }] },
        "expirationSeconds",
      ],
      [
        "create_sub_organization",
        "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
        {
          subOrganizationName: "s",
          rootQuorumThreshold: 1,
          rootUsers: [{ userName: "r", apiKeys: [apiKey(value)], authenticators: [], oauthProviders: [] }],
        },
        "expirationSeconds",
      ],
      [
        "create_read_write_session",
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        { targetPublicKey: target(), expirationSeconds: value },
        "expirationSeconds",
      ],
      [
        "stamp_login",
        "ACTIVITY_TYPE_STAMP_LOGIN",
        { publicKey: generateP256KeyPair().publicKey, expirationSeconds: value },
        "expirationSeconds",
      ],
      [
        "email_auth",
        "ACTIVITY_TYPE_EMAIL_AUTH_V3",
        { email: "erin@example.com", targetPublicKey: target(), expirationSeconds: value, emailCustomization: { appName: "test" } },
        "expirationSeconds",
      ],
      [
        "init_user_email_recovery",
        "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2",
        { email: "erin@example.com", targetPublicKey: target(), expirationSeconds: value, emailCustomization: { appName: "test" } },
        "expirationSeconds",
      ],
      [
        "init_otp",
        "ACTIVITY_TYPE_INIT_OTP_V3",
        { otpType: "OTP_TYPE_EMAIL", contact: "erin@example.com", appName: "test", expirationSeconds: value },
        "expirationSeconds",
      ],
      [
        "update_auth_proxy_config",
        "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
        { allowedOrigins: [], allowedAuthMethods: [], sessionExpirationSeconds: Number(value) },
        "sessionExpirationSeconds",
      ],
      [
        "update_auth_proxy_config",
        "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
        { allowedOrigins: [], allowedAuthMethods: [], otpExpirationSeconds: Number(value) },
        "otpExpirationSeconds",
      ],
      [
        "update_auth_proxy_config",
        "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG",
        { allowedOrigins: [], allowedAuthMethods: [], verificationTokenExpirationSeconds: Number(value) },
        "verificationTokenExpirationSeconds",
      ],
    ];
    const before = await rowCounts(server.services.db);
    for (const value of HUGE) {
      for (const [operation, type, parameters, field] of requests(value)) {
        const { status, json } = await send(operation, type, parameters);
        const context = `${operation} ${field}=${value}: ${status} ${JSON.stringify((json.activity as { failure?: unknown } | undefined)?.failure ?? json).slice(0, 300)}`;
        expect(json, context).toMatchObject({ code: 3 });
        expect(status, context).toBe(400);
        expect(json, context).toMatchObject({ code: 3, message: expect.stringContaining(field) });
        expect(String(json.message), context).not.toContain("unexpectedly");
      }
    }
    const after = await rowCounts(server.services.db);
    for (const table of ["api_keys", "users", "organizations", "otps"])
      if (table in before) expect(after[table], table).toBe(before[table]);
  });

  it("still accepts long lifetimes within the bounds", async () => {
    const apiKey = {
      apiKeyName: "ten years",
      publicKey: generateP256KeyPair().publicKey,
      curveType: "API_KEY_CURVE_P256" as const,
      expirationSeconds: String(10 * 365 * 86400),
    };
    expect((await server.client().createApiKeys({ userId, apiKeys: [apiKey] })).apiKeyIds).toHaveLength(1);
    const session = await server
      .client()
      .createReadWriteSession({ targetPublicKey: generateP256KeyPair().publicKeyUncompressed, expirationSeconds: "31536000" });
    expect(session.apiKeyId).toEqual(expect.any(String));
  });
});

describe("request bodies with duplicate JSON keys are refused with 400 naming the key path, nothing written", () => {
  let server: TestServer;
  let configId: string;
  const stamped = (path: string, body: string) =>
    post(`${server.url}${path}`, body, { "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) });
  const submit = async (operation: string, type: string, parameters: unknown) => {
    const response = await stamped(`/public/v1/submit/${operation}`, activityBody(type, server.root.organizationId, parameters));
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    return response.json.activity as { status: string; result: Record<string, Record<string, unknown>> };
  };
  beforeAll(async () => {
    server = await startTestServer();
    await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    configId = (await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { sessionExpirationSeconds: 1200 }))
      .result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => server.close());

  const refused = (response: { status: number; json: Record<string, unknown> }, path: string) => {
    expect(response.status, JSON.stringify(response.json)).toBe(400);
    expect(response.json).toMatchObject({ code: 3, message: expect.stringContaining(path), details: expect.any(Array) });
    expect(String(response.json.message)).toContain("duplicate key");
  };

  it("on activities, at any depth and however the key is escaped", async () => {
    const before = await rowCounts(server.services.db);
    const org = JSON.stringify(server.root.organizationId);
    const now = JSON.stringify(String(Date.now()));
    const bodies: Array<[string, string, string]> = [
      [
        "create_user_tag",
        `{"type":"ACTIVITY_TYPE_CREATE_USER_TAG","timestampMs":${now},"organizationId":${org},"parameters":{"userTagName":"approved","userIds":[],"userTagName":"other"}}`,
        "parameters.userTagName",
      ],
      [
        "create_user_tag",
        `{"type":"ACTIVITY_TYPE_CREATE_USER_TAG","timestampMs":${now},"organizationId":${org},"parameters":{"userTagName":"approved","userIds":[],"userTag\\u004eame":"other"}}`,
        "parameters.userTagName",
      ],
      [
        "create_user_tag",
        `{"type":"ACTIVITY_TYPE_CREATE_USER_TAG","timestampMs":${now},"organizationId":${org},"organizationId":"00000000-0000-0000-0000-000000000000","parameters":{"userTagName":"x","userIds":[]}}`,
        "organizationId",
      ],
      [
        "create_user_tag",
        `{"type":"ACTIVITY_TYPE_CREATE_USER_TAG","timestampMs":${now},"organizationId":${org},"parameters":{"userTagName":"x","userIds":[]},"parameters":{"userTagName":"y","userIds":[]}}`,
        "parameters",
      ],
      [
        "create_policies",
        `{"type":"ACTIVITY_TYPE_CREATE_POLICIES","timestampMs":${now},"organizationId":${org},"parameters":{"policies":[{"policyName":"ok","effect":"EFFECT_DENY","condition":"false","consensus":"true","notes":""},{"policyName":"p","effect":"EFFECT_DENY","effect":"EFFECT_ALLOW","condition":"true","consensus":"true","notes":""}]}}`,
        "parameters.policies[1].effect",
      ],
      [
        "approve_activity",
        `{"type":"ACTIVITY_TYPE_APPROVE_ACTIVITY","timestampMs":${now},"organizationId":${org},"parameters":{"fingerprint":"sha256:00","fingerprint":"sha256:11"}}`,
        "parameters.fingerprint",
      ],
    ];
    for (const [operation, body, path] of bodies) refused(await stamped(`/public/v1/submit/${operation}`, body), path);
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("on queries", async () => {
    const org = JSON.stringify(server.root.organizationId);
    refused(await stamped("/public/v1/query/whoami", `{"organizationId":${org},"organizationId":${org}}`), "organizationId");
    refused(
      await stamped(
        "/public/v1/query/get_user",
        `{"organizationId":${org},"userId":${JSON.stringify(server.root.userId)},"userId":"other"}`,
      ),
      "userId",
    );
  });

  it("on the auth proxy", async () => {
    const before = await rowCounts(server.services.db);
    const response = await post(
      `${server.authProxyUrl}/v1/signup_v2`,
      `{"userName":"a","userName":"b","apiKeys":[],"authenticators":[],"oauthProviders":[]}`,
      { "X-Auth-Proxy-Config-Id": configId },
    );
    refused(response, "userName");
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("accepts equal keys in different objects, and braces or quotes inside strings", async () => {
    const body = activityBody("ACTIVITY_TYPE_CREATE_POLICIES", server.root.organizationId, {
      policies: [
        {
          policyName: 'a "{\\"policyName\\":1}" {',
          effect: "EFFECT_DENY",
          condition: "activity.type == 'NONE'",
          consensus: "true",
          notes: '}],"notes":"',
        },
        { policyName: "b", effect: "EFFECT_DENY", condition: "activity.type == 'NONE'", consensus: "true", notes: "" },
      ],
    });
    const response = await stamped("/public/v1/submit/create_policies", body);
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    expect((response.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});

describe("the duplicate-key scanner", () => {
  it("accepts every JSON text JSON.stringify writes (no duplicates possible) and refuses one key written twice", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        checkDuplicateKeys(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, value) => {
        const key = Object.keys(object)[0]!;
        const text = JSON.stringify({ wrapper: [object] }).replace(
          /\}\]\}$/,
          () => `,${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}}]}`,
        );
        expect(() => checkDuplicateKeys(text)).toThrow(`wrapper[0].${key}: duplicate key`);
      }),
      { numRuns: 500 },
    );
  });

  it("takes linear time on hostile shapes the size of the body limit (2 MiB)", () => {
    const MiB2 = 2 * 1024 * 1024;
    const shapes: Record<string, (bytes: number) => string> = {
      "many keys": (bytes) => `{${Array.from({ length: bytes / 12 }, (_, i) => `"k${i}":0`).join(",")}}`,
      "many empty objects": (bytes) => `[${Array.from({ length: bytes / 3 }, () => "{}").join(",")}]`,
      "escaped keys": (bytes) => `{${Array.from({ length: bytes / 24 }, (_, i) => `"\\u0061${i}\\n":1`).join(",")}}`,
      "a long string of escapes": (bytes) => `{"a":"${'\\"'.repeat(bytes / 4)}"}`,
      "deep within the depth limit, repeated": (bytes) =>
        `[${Array.from({ length: bytes / 200 }, () => `${'{"a":'.repeat(30)}0${"}".repeat(30)}`).join(",")}]`,
    };
    /** The fastest of three runs, in ms: the least disturbed by the collector or other processes. */
    const fastestMs = (run: () => void) => {
      let fastest = Infinity;
      for (let attempt = 0; attempt < 3; attempt++) {
        const started = performance.now();
        run();
        fastest = Math.min(fastest, performance.now() - started);
      }
      return fastest;
    };
    // Timed against JSON.parse of the same text (which every body goes through first) rather than a wall-clock
    // budget: a slow or busy machine slows both alike. A linear scan costs about what parsing costs (0.1 to 3
    // times here); a quadratic one, on texts this size, thousands of times.
    for (const [shape, build] of Object.entries(shapes)) {
      const text = build(MiB2);
      const parseMs = fastestMs(() => JSON.parse(text));
      const scanMs = fastestMs(() => checkDuplicateKeys(text));
      process.stdout.write(
        `[duplicate keys] ${shape}: ${(text.length / 1024).toFixed(0)} KiB in ${scanMs.toFixed(1)} ms, parsed in ${parseMs.toFixed(1)} ms\n`,
      );
      expect(scanMs / parseMs, shape).toBeLessThan(20);
    }
  });
});

import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const HUGE = ["9007199254740991", "9999999999999999999", "315360000000"];

describe("lifetimes in seconds are bounded: a huge value is a 400 naming the field, nothing written", () => {
  let server: TestServer;
  let userId: string;
  const send = (operation: string, type: string, parameters: unknown) => {
    const body = activityBody(type, server.root.organizationId, parameters);
    return post(`${server.url}/public/v1/submit/${operation}`, body, { "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) });
  };
  beforeAll(async () => {
    server = await startTestServer();
    expect((await send("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {})).status).toBe(200);
    userId = (await server.client().createUsers({ users: [{ userName: "erin", userEmail: "erin@example.com", userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }] })).userIds[0]!;
  });
  afterAll(async () => server.close());

  it("refuses each huge expirationSeconds with 400 naming the field", async () => {
    const target = () => generateP256KeyPair().publicKeyUncompressed;
    const apiKey = (expirationSeconds: string) => ({ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds });
    const requests = (value: string): Array<[string, string, unknown, string]> => [
      ["create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", { userId, apiKeys: [apiKey(value)] }, "apiKeys[0].expirationSeconds"],
      ["create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", { users: [{ userName: "u", userTags: [], apiKeys: [apiKey(value)], authenticators: [], oauthProviders: [] }] }, "expirationSeconds"],
      ["create_sub_organization", "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", { subOrganizationName: "s", rootQuorumThreshold: 1, rootUsers: [{ userName: "r", apiKeys: [apiKey(value)], authenticators: [], oauthProviders: [] }] }, "expirationSeconds"],
      ["create_read_write_session", "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", { targetPublicKey: target(), expirationSeconds: value }, "expirationSeconds"],
      ["stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", { publicKey: generateP256KeyPair().publicKey, expirationSeconds: value }, "expirationSeconds"],
      ["email_auth", "ACTIVITY_TYPE_EMAIL_AUTH_V3", { email: "erin@example.com", targetPublicKey: target(), expirationSeconds: value, emailCustomization: { appName: "test" } }, "expirationSeconds"],
      ["init_user_email_recovery", "ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2", { email: "erin@example.com", targetPublicKey: target(), expirationSeconds: value, emailCustomization: { appName: "test" } }, "expirationSeconds"],
      ["init_otp", "ACTIVITY_TYPE_INIT_OTP_V3", { otpType: "OTP_TYPE_EMAIL", contact: "erin@example.com", appName: "test", expirationSeconds: value }, "expirationSeconds"],
      ["update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: [], allowedAuthMethods: [], sessionExpirationSeconds: Number(value) }, "sessionExpirationSeconds"],
      ["update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: [], allowedAuthMethods: [], otpExpirationSeconds: Number(value) }, "otpExpirationSeconds"],
      ["update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: [], allowedAuthMethods: [], verificationTokenExpirationSeconds: Number(value) }, "verificationTokenExpirationSeconds"],
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
    for (const table of ["api_keys", "users", "organizations", "otps"]) if (table in before) expect(after[table], table).toBe(before[table]);
  });

  it("still accepts long lifetimes within the bounds", async () => {
    const apiKey = { apiKeyName: "ten years", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" as const, expirationSeconds: String(10 * 365 * 86400) };
    expect((await server.client().createApiKeys({ userId, apiKeys: [apiKey] })).apiKeyIds).toHaveLength(1);
    const session = await server.client().createReadWriteSession({ targetPublicKey: generateP256KeyPair().publicKeyUncompressed, expirationSeconds: "31536000" });
    expect(session.apiKeyId).toEqual(expect.any(String));
  });
});

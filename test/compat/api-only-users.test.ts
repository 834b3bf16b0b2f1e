import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyActivityError, TurnkeyClient } from "@turnkey/http";
import { hashMessage, recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * The flow of the hosted service's policy examples (with-solana, with-bitcoin, with-tron) through the unchanged
 * @turnkey/http: the root user creates an API-only user with a key, a policy naming that user, and the user signs.
 */
describe("create_api_only_users through the unchanged @turnkey/http", () => {
  let server: TestServer;
  let root: TurnkeyClient;
  let ethAddress: string;
  const timestampMs = () => String(Date.now());

  beforeAll(async () => {
    server = await startTestServer();
    root = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
    );
    const { addresses } = await server.client().createWallet({
      walletName: "treasury",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    ethAddress = addresses[0]!;
  });
  afterAll(async () => server.close());

  it("creates an API-only user who signs once a policy names them", async () => {
    const key = generateP256KeyPair();
    const { userTagId } = await server.client().createUserTag({ userTagName: "bots", userIds: [] });
    const created = await root.createApiOnlyUsers({
      type: "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
      timestampMs: timestampMs(),
      organizationId: server.root.organizationId,
      parameters: {
        apiOnlyUsers: [{ userName: "Signer bot", userTags: [userTagId], apiKeys: [{ apiKeyName: "bot key", publicKey: key.publicKey }] }],
      },
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(created.activity.type).toBe("ACTIVITY_TYPE_CREATE_API_ONLY_USERS");
    expect(created.activity.intent.createApiOnlyUsersIntent?.apiOnlyUsers[0]?.userName).toBe("Signer bot");
    const [userId] = created.activity.result.createApiOnlyUsersResult!.userIds;

    const { user } = await server.client().getUser({ userId: userId! });
    expect(user).toMatchObject({ userName: "Signer bot", userTags: [userTagId], authenticators: [], oauthProviders: [] });
    expect(user.apiKeys.map((k) => [k.apiKeyName, k.credential.publicKey, k.credential.type])).toEqual([
      ["bot key", key.publicKey, "CREDENTIAL_TYPE_API_KEY_P256"],
    ]);

    const bot = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    );
    const payload = hashMessage("pay the invoice");
    const sign = () =>
      bot.signRawPayload({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        timestampMs: timestampMs(),
        organizationId: server.root.organizationId,
        parameters: { signWith: ethAddress, payload, encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
      });
    await expect(sign()).rejects.toThrow(/implicit deny/);

    const policy = await root.createPolicy({
      type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
      timestampMs: timestampMs(),
      organizationId: server.root.organizationId,
      parameters: {
        policyName: "the bot signs with the treasury",
        effect: "EFFECT_ALLOW",
        consensus: `approvers.any(user, user.id == '${userId}')`,
        condition: `activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && wallet_account.address == '${ethAddress}'`,
        notes: "",
      },
    });
    expect(policy.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const signed = await sign();
    expect(signed.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { r, s, v } = signed.activity.result.signRawPayloadResult!;
    const recovered = await recoverAddress({ hash: payload, signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number.parseInt(v, 16) } });
    expect(recovered.toLowerCase()).toBe(ethAddress.toLowerCase());
  });

  it("refuses a key that is not a compressed P-256 public key, naming the field, and creates nobody", async () => {
    const before = (await server.client().getUsers({})).users.length;
    const bad = root.createApiOnlyUsers({
      type: "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
      timestampMs: timestampMs(),
      organizationId: server.root.organizationId,
      parameters: { apiOnlyUsers: [{ userName: "Broken bot", userTags: [], apiKeys: [{ apiKeyName: "k", publicKey: "04abcd" }] }] },
    });
    await expect(bad).rejects.toThrow(/apiOnlyUsers\[0\]\.apiKeys\[0\]\.publicKey/);
    await bad.catch((error: unknown) => expect(error).not.toBeInstanceOf(TurnkeyActivityError));
    expect((await server.client().getUsers({})).users.length).toBe(before);
  });

  it("refuses the wrong activity type for the path", async () => {
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_USERS_V4",
      timestampMs: timestampMs(),
      organizationId: server.root.organizationId,
      parameters: { apiOnlyUsers: [] },
    });
    const stamp = await new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }).stamp(
      body,
    );
    const answer = await post(`${server.url}/public/v1/submit/create_api_only_users`, body, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    expect(answer.status).toBe(400);
    expect(String(answer.json.message)).toContain("expects ACTIVITY_TYPE_CREATE_API_ONLY_USERS");
  });
});

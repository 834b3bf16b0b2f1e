import { generateP256KeyPair } from "@turnkey/crypto";
import { recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

/**
 * Issue 14: input checks ran only when the decision was "allow", so under a root quorum of 2 a bad request
 * waited for consensus and every approval then failed with 400 (its vote rolled back): stuck for good.
 * Every activity's input is now checked at submission: a bad request is a 400 naming the field, with
 * nothing written, even when the decision would be CONSENSUS_NEEDED.
 */
describe("input validated at submission, before the decision", () => {
  let server: TestServer;
  let bob: { userId: string; publicKey: string; privateKey: string };
  let walletId: string;
  let address: string;
  let privateKeyId: string;
  let policyId: string;
  const unknownId = "00000000-0000-4000-8000-000000000000";
  // An uncompressed P-256 key of the right length whose point is not on the curve.
  const offCurveKey = `04${"11".repeat(64)}`;

  beforeAll(async () => {
    server = await startTestServer();
    const client = server.client();
    const { userId, key } = await createUserWithApiKey(client, "bob");
    bob = { userId, publicKey: key.publicKey, privateKey: key.privateKey };
    const wallet = await client.createWallet({
      walletName: "main",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    walletId = wallet.walletId;
    address = wallet.addresses[0]!;
    const keys = await client.createPrivateKeys({
      privateKeys: [{ privateKeyName: "key", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
    });
    privateKeyId = keys.privateKeys[0]!.privateKeyId!;
    // A policy that never applies: every decision below is the root quorum's, which takes two approvals.
    policyId = (await client.createPolicy({ policyName: "a policy", effect: "EFFECT_ALLOW", condition: "false", notes: "" })).policyId;
    await client.updateRootQuorum({ threshold: 2, userIds: [server.root.userId, bob.userId] });
  });
  afterAll(async () => server.close());

  /** Submits as the root user, whose approval alone no longer decides anything. */
  async function submit(operation: string, type: string, parameters: unknown, as = { publicKey: "", privateKey: "" }) {
    const publicKey = as.publicKey || server.root.apiPublicKey;
    const privateKey = as.privateKey || server.root.apiPrivateKey!;
    const body = activityBody(type, server.root.organizationId, parameters);
    return post(`${server.url}/public/v1/submit/${operation}`, body, { "X-Stamp": p256Stamp(body, publicKey, privateKey) });
  }

  const ethAccount = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
  const newUser = { userName: "carol", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] };
  /** `field` is the field violation; the message names it too (or, when given, `named`). */
  const cases: Array<{ operation: string; type: string; field: string; named?: string; parameters: () => Record<string, unknown> }> = [
    {
      operation: "update_user",
      type: "ACTIVITY_TYPE_UPDATE_USER",
      field: "userEmail",
      parameters: () => ({ userId: bob.userId, userEmail: "not-an-email" }),
    },
    {
      operation: "update_user",
      type: "ACTIVITY_TYPE_UPDATE_USER",
      field: "userId",
      parameters: () => ({ userId: unknownId, userName: "nobody" }),
    },
    {
      operation: "update_user",
      type: "ACTIVITY_TYPE_UPDATE_USER",
      field: "userTagIds[0]",
      parameters: () => ({ userId: bob.userId, userTagIds: [unknownId] }),
    },
    {
      operation: "update_user_email",
      type: "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
      field: "userEmail",
      parameters: () => ({ userId: bob.userId, userEmail: "bob at example" }),
    },
    {
      operation: "update_user_name",
      type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
      field: "userId",
      parameters: () => ({ userId: unknownId, userName: "nobody" }),
    },
    {
      operation: "create_users",
      type: "ACTIVITY_TYPE_CREATE_USERS_V4",
      field: "users[0].userPhoneNumber",
      parameters: () => ({ users: [{ ...newUser, userPhoneNumber: "555-0100" }] }),
    },
    {
      operation: "create_users",
      type: "ACTIVITY_TYPE_CREATE_USERS_V4",
      field: "users[0].apiKeys[0].publicKey",
      parameters: () => ({
        users: [{ ...newUser, apiKeys: [{ apiKeyName: "k", publicKey: "02abcd", curveType: "API_KEY_CURVE_P256" }] }],
      }),
    },
    {
      operation: "create_api_keys",
      type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
      field: "apiKeys[0].expirationSeconds",
      parameters: () => ({
        userId: bob.userId,
        apiKeys: [
          {
            apiKeyName: "short",
            publicKey: generateP256KeyPair().publicKey,
            curveType: "API_KEY_CURVE_P256",
            expirationSeconds: "9007199254740991",
          },
        ],
      }),
    },
    {
      operation: "delete_api_keys",
      type: "ACTIVITY_TYPE_DELETE_API_KEYS",
      field: "apiKeyIds[0]",
      parameters: () => ({ userId: bob.userId, apiKeyIds: [unknownId] }),
    },
    {
      operation: "create_wallet",
      type: "ACTIVITY_TYPE_CREATE_WALLET",
      field: "mnemonicLength",
      parameters: () => ({ walletName: "second", accounts: [], mnemonicLength: 13 }),
    },
    {
      operation: "create_wallet_accounts",
      type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
      field: "accounts[0].path",
      parameters: () => ({ walletId, accounts: [{ ...ethAccount, path: "m/44'/sixty'" }] }),
    },
    {
      operation: "create_wallet_accounts",
      type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
      field: "accounts[0].curve",
      named: "accounts[0]: ADDRESS_FORMAT_SOLANA",
      parameters: () => ({ walletId, accounts: [{ ...ethAccount, path: "m/44'/501'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] }),
    },
    {
      operation: "create_wallet_accounts",
      type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
      field: "walletId",
      parameters: () => ({ walletId: unknownId, accounts: [{ ...ethAccount, path: "m/44'/60'/0'/0/1" }] }),
    },
    {
      operation: "export_wallet",
      type: "ACTIVITY_TYPE_EXPORT_WALLET",
      field: "targetPublicKey",
      parameters: () => ({ walletId, targetPublicKey: offCurveKey }),
    },
    {
      operation: "export_wallet_account",
      type: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
      field: "address",
      parameters: () => ({
        address: "0x0000000000000000000000000000000000000000",
        targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
      }),
    },
    {
      operation: "delete_wallets",
      type: "ACTIVITY_TYPE_DELETE_WALLETS",
      field: "walletIds[0]",
      parameters: () => ({ walletIds: [unknownId], deleteWithoutExport: true }),
    },
    {
      operation: "create_private_keys",
      type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
      field: "privateKeys[0].addressFormats[0]",
      parameters: () => ({
        privateKeys: [{ privateKeyName: "k2", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
      }),
    },
    {
      operation: "export_private_key",
      type: "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
      field: "targetPublicKey",
      parameters: () => ({ privateKeyId, targetPublicKey: "04" }),
    },
    {
      operation: "sign_raw_payload",
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      field: "payload",
      parameters: () => ({
        signWith: address,
        payload: "not hex",
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_KECCAK256",
      }),
    },
    {
      operation: "sign_raw_payload",
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      field: "hashFunction",
      parameters: () => ({
        signWith: privateKeyId,
        payload: "hello",
        encoding: "PAYLOAD_ENCODING_TEXT_UTF8",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      }),
    },
    {
      operation: "sign_raw_payloads",
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
      field: "signWith",
      parameters: () => ({
        signWith: "0x1111111111111111111111111111111111111111",
        payloads: ["00"],
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_KECCAK256",
      }),
    },
    {
      operation: "sign_transaction",
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      field: "unsignedTransaction",
      parameters: () => ({ signWith: address, unsignedTransaction: "zz", type: "TRANSACTION_TYPE_ETHEREUM" }),
    },
    {
      operation: "create_policy",
      type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
      field: "condition",
      parameters: () => ({ policyName: "broken", effect: "EFFECT_ALLOW", condition: "activity.type ==", notes: "" }),
    },
    {
      operation: "update_policy",
      type: "ACTIVITY_TYPE_UPDATE_POLICY_V2",
      field: "policyConsensus",
      parameters: () => ({ policyId, policyConsensus: "approvers.any(" }),
    },
    {
      operation: "delete_policy",
      type: "ACTIVITY_TYPE_DELETE_POLICY",
      field: "policyId",
      parameters: () => ({ policyId: unknownId }),
    },
    {
      operation: "set_ip_allowlist",
      type: "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
      field: "rules[0].cidr",
      parameters: () => ({ enabled: true, rules: [{ cidr: "10.0.0.0/33" }] }),
    },
    {
      operation: "set_organization_feature",
      type: "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
      field: "value",
      parameters: () => ({ name: "FEATURE_NAME_EMAIL_AUTH", value: "maybe" }),
    },
    {
      operation: "update_root_quorum",
      type: "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
      field: "userIds[1]",
      parameters: () => ({ threshold: 1, userIds: [server.root.userId, unknownId] }),
    },
    {
      operation: "create_invitations",
      type: "ACTIVITY_TYPE_CREATE_INVITATIONS",
      field: "invitations[0].receiverUserEmail",
      parameters: () => ({
        invitations: [
          {
            receiverUserName: "dave",
            receiverUserEmail: "dave",
            receiverUserTags: [],
            accessType: "ACCESS_TYPE_WEB",
            senderUserId: server.root.userId,
          },
        ],
      }),
    },
    {
      operation: "create_smart_contract_interface",
      type: "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
      field: "smartContractInterface",
      parameters: () => ({
        smartContractAddress: "0x1111111111111111111111111111111111111111",
        smartContractInterface: "{not json",
        type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        label: "token",
      }),
    },
  ];

  it.each(cases)(
    "$operation: a bad $field is a 400 naming it, with nothing written",
    async ({ operation, type, field, named, parameters }) => {
      const before = await rowCounts(server.services.db);
      const { status, json } = await submit(operation, type, parameters());
      expect(status, JSON.stringify(json)).toBe(400);
      expect(json.code).toBe(3);
      expect(String(json.message)).toContain(named ?? field);
      const violations = (json.details as Array<{ fieldViolations?: Array<{ field: string }> }>).flatMap((d) => d.fieldViolations ?? []);
      expect(violations.map((v) => v.field)).toContain(field);
      expect(await rowCounts(server.services.db)).toEqual(before);
    },
  );

  it("signs at the deciding approval with the key it reads then (validate's lookup serves only a signature made at once)", async () => {
    const digest = `0x${"ab".repeat(32)}` as const;
    const submitted = await server.client().signRawPayload({
      signWith: address,
      payload: digest,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    });
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const approved = await server
      .client({ apiPublicKey: bob.publicKey, apiPrivateKey: bob.privateKey })
      .approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { r, s, v } = (approved.activity.result as { signRawPayloadResult: { r: string; s: string; v: string } }).signRawPayloadResult;
    const signer = await recoverAddress({ hash: digest, signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number.parseInt(v, 16) } });
    expect(signer.toLowerCase()).toBe(address.toLowerCase());
  });

  it("still waits for consensus on valid input, which the deciding approval then runs", async () => {
    const wallets = await submit("delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", { walletIds: [walletId], deleteWithoutExport: true });
    expect(wallets.status, JSON.stringify(wallets.json)).toBe(200);
    expect((wallets.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    const refused = await submit("update_user", "ACTIVITY_TYPE_UPDATE_USER", { userId: bob.userId, userEmail: "not-an-email" });
    expect(refused.status).toBe(400);

    const submitted = await server.client().updateUser({ userId: bob.userId, userEmail: "bob@example.com" });
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const approved = await server
      .client({ apiPublicKey: bob.publicKey, apiPrivateKey: bob.privateKey })
      .approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await server.client().getUser({ userId: bob.userId })).user.userEmail).toBe("bob@example.com");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/server/openapi.js";
import { activityDefinitions, queryDefinitions } from "../../src/pipeline/registry.js";
import { isVoteDefinition } from "../../src/operations/vote-definition.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { responseViolations } from "../helpers/result-schemas.js";

/**
 * Each definition declares its result; /openapi.json publishes it, and what a real server answers matches it
 * (test/helpers/result-schemas.ts checks every answer the compat tests receive the same way).
 */
type Operation = { post: { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> } };
const document = openApiDocument() as { paths: Record<string, Operation> };
const responseSchema = (path: string) => document.paths[path]!.post.responses["200"]!.content!["application/json"]!.schema;
const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as unknown;

describe("/openapi.json types every response", () => {
  it("each activity's response holds its declared result under result.<resultKey>", () => {
    for (const d of activityDefinitions) {
      if (isVoteDefinition(d)) continue; // a vote answers with the activity voted on
      const typed = (responseSchema(`/public/v1/submit/${d.operation}`).allOf as Array<Record<string, unknown>>)[1] as {
        properties: { activity: { properties: { result: { properties: Record<string, unknown> } } } };
      };
      expect(typed.properties.activity.properties.result.properties[d.resultKey], d.operation).toEqual(plain(d.result));
    }
  });

  it("each query's response is its declared result", () => {
    for (const d of queryDefinitions) expect(responseSchema(`/public/v1/query/${d.operation}`), d.operation).toEqual(plain(d.result));
  });
});

describe("a real server answers within the declared results", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A query signed with the root's API key; the body exactly as answered. */
  async function query(operation: string, body: Record<string, unknown>): Promise<unknown> {
    const text = JSON.stringify(body);
    const stamp = p256Stamp(text, server.root.apiPublicKey, server.root.apiPrivateKey!);
    const { status, json } = await post(`${server.url}/public/v1/query/${operation}`, text, { "X-Stamp": stamp });
    expect(status, operation).toBe(200);
    return json;
  }

  it("wallet, user, organization and activity answers match their schemas field for field", async () => {
    const organizationId = server.root.organizationId;
    const client = server.client();
    const { walletId } = await client.createWallet({
      walletName: "Checked",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    const queries: Array<[string, Record<string, unknown>]> = [
      ["get_wallet", { organizationId, walletId }],
      ["list_wallet_accounts", { organizationId, walletId, includeWalletDetails: true }],
      ["list_users", { organizationId }],
      ["get_organization", { organizationId }],
      ["get_organization_configs", { organizationId }],
      ["list_activities", { organizationId }],
      ["whoami", { organizationId }],
    ];
    for (const [operation, body] of queries) {
      const path = `/public/v1/query/${operation}`;
      expect(responseViolations(path, await query(operation, body)), operation).toEqual([]);
    }
  });

  it("operations the compat tests do not reach answer within their declared results too", async () => {
    // Each SDK call below goes through the check installed by startTestServer: an answer outside its schema rejects it.
    const organizationId = server.root.organizationId;
    const client = server.client();
    const { policyIds } = await client.createPolicies({
      policies: [{ policyName: "Checked", effect: "EFFECT_ALLOW", condition: "activity.action == 'CREATE'", consensus: "", notes: "" }],
    });
    await client.updatePolicy({ policyId: policyIds[0]!, policyNotes: "updated" });
    expect(
      responseViolations("/public/v1/query/get_policy", await query("get_policy", { organizationId, policyId: policyIds[0] })),
    ).toEqual([]);

    const { privateKeys } = await client.createPrivateKeys({
      privateKeys: [
        { privateKeyName: "Checked key", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] },
      ],
    });
    const { privateKeyTagId } = await client.createPrivateKeyTag({ privateKeyTagName: "checked", privateKeyIds: [] });
    await client.updatePrivateKeyTag({ privateKeyTagId, addPrivateKeyIds: [privateKeys[0]!.privateKeyId!], removePrivateKeyIds: [] });
    await client.deletePrivateKeyTags({ privateKeyTagIds: [privateKeyTagId] });

    const { smartContractInterfaceId } = await client.createSmartContractInterface({
      smartContractAddress: "0x000000000000000000000000000000000000dEaD",
      smartContractInterface: "[]",
      type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
      label: "checked",
    });
    const path = "/public/v1/query/get_smart_contract_interface";
    expect(responseViolations(path, await query("get_smart_contract_interface", { organizationId, smartContractInterfaceId }))).toEqual([]);
    await client.deleteSmartContractInterface({ smartContractInterfaceId });

    const { walletId } = await client.createWallet({
      walletName: "Two accounts",
      accounts: [0, 1].map((i) => ({
        curve: "CURVE_SECP256K1" as const,
        pathFormat: "PATH_FORMAT_BIP32" as const,
        path: `m/44'/60'/0'/0/${i}`,
        addressFormat: "ADDRESS_FORMAT_ETHEREUM" as const,
      })),
    });
    const { accounts } = await client.getWalletAccounts({ walletId });
    await client.deleteWalletAccounts({ walletAccountIds: [accounts[1]!.walletAccountId], deleteWithoutExport: true });

    // Nothing listens on the discard port: the endpoint's deliveries simply fail.
    const { endpointId } = await client.createWebhookEndpoint({
      url: "http://127.0.0.1:9/hooks",
      name: "checked",
      subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
    });
    await client.updateWebhookEndpoint({ endpointId, name: "renamed" });
    await client.listWebhookEndpoints({});
    const deliveries = "/public/v1/query/list_webhook_deliveries";
    expect(responseViolations(deliveries, await query("list_webhook_deliveries", { organizationId, endpointId }))).toEqual([]);
    await client.deleteWebhookEndpoint({ endpointId });
  });

  it("the check finds a field an answer has but its schema does not declare, and a field of the wrong type", async () => {
    const organizationId = server.root.organizationId;
    const path = "/public/v1/query/whoami";
    const answer = (await query("whoami", { organizationId })) as Record<string, unknown>;
    expect(responseViolations(path, { ...answer, extra: "x" })).toEqual(["/extra: not declared in the result schema"]);
    expect(responseViolations(path, { ...answer, userId: 7 })).toEqual(["/userId: Expected string"]);
  });
});

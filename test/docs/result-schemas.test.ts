import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/server/openapi.js";
import { activityDefinitions, queryDefinitions } from "../../src/pipeline/registry.js";
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
      if (d.vote) continue; // a vote answers with the activity voted on
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
    server = await startTestServer();
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

  it("the check finds a field an answer has but its schema does not declare, and a field of the wrong type", async () => {
    const organizationId = server.root.organizationId;
    const path = "/public/v1/query/whoami";
    const answer = (await query("whoami", { organizationId })) as Record<string, unknown>;
    expect(responseViolations(path, { ...answer, extra: "x" })).toEqual(["/extra: not declared in the result schema"]);
    expect(responseViolations(path, { ...answer, userId: 7 })).toEqual(["/userId: Expected string"]);
  });
});

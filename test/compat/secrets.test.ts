import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { decryptSecretBundle, encryptSecretToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

const SUITE = "TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1" as const;

describe("secrets through @turnkey/http, @turnkey/sdk-server and @turnkey/crypto", () => {
  let server: TestServer;
  let http: TurnkeyClient;
  let signerKey: string;
  let organizationId: string;
  let passwordId: string;
  let cardId: string;
  let alice: { userId: string; client: ReturnType<TestServer["client"]> };

  /** init_import_secrets through @turnkey/http (sdk-server has no method for it), one target per secret. */
  async function importTargets(count: number): Promise<string[]> {
    const { activity } = await http.initImportSecrets({
      type: "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { encryptionSuite: SUITE, numSecrets: count },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    return activity.result.initImportSecretsResult!.enclaveTargetMessages;
  }

  async function encrypt(plaintext: string, target: string) {
    return encryptSecretToBundle({ plaintext, ingressTargetBundle: target, organizationId, dangerouslyOverrideSignerPublicKey: signerKey });
  }

  async function exportAs(client: ReturnType<TestServer["client"]>, secretIds: string[]) {
    const key = generateP256KeyPair();
    const result = await client.exportSecrets({
      secrets: secretIds.map((secretId) => ({ secretId, targetPublicKey: key.publicKeyUncompressed, encryptionSuite: SUITE })),
    });
    return Promise.all(
      result.secretPayloads.map((secretPayload) =>
        decryptSecretBundle({
          secretPayload,
          embeddedPrivateKey: key.privateKey,
          organizationId,
          dangerouslyOverrideSignerPublicKey: signerKey,
        }),
      ),
    );
  }

  beforeAll(async () => {
    server = await startTestServer();
    organizationId = server.root.organizationId;
    signerKey = server.services.signer.publicKeyHex;
    http = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! }),
    );
    const { userId, credentials } = await createUserWithApiKey(server.client(), "alice", { apiKeyName: "alice" });
    alice = { userId, client: server.client(credentials) };
  });
  afterAll(async () => server.close());

  it("imports secrets encrypted to single-use targets, stores them sealed, lists them without values", async () => {
    const targets = await importTargets(2);
    expect(targets).toHaveLength(2);
    const password = await encrypt("hunter2-correct-horse", targets[0]!);
    const card = await encrypt("4111 1111 1111 1111 12/30 123", targets[1]!);
    const { secretIds } = await server.client().importSecrets({
      secrets: [
        {
          name: "database password",
          secretPayload: password.secretPayload,
          targetPublicKey: password.targetPublicKey,
          encryptionSuite: SUITE,
          staticProperties: [{ key: "kind", value: "password" }],
        },
        {
          secretPayload: card.secretPayload,
          targetPublicKey: card.targetPublicKey,
          encryptionSuite: SUITE,
          staticProperties: [
            { key: "kind", value: "creditCard" },
            { key: "owner", value: "finance" },
          ],
        },
      ],
    });
    [passwordId, cardId] = secretIds as [string, string];

    const { secrets } = await server.client().listSecrets({});
    expect(secrets.map((s) => s.secretId)).toEqual([cardId, passwordId]); // newest first
    expect(secrets[1]).toMatchObject({ name: "database password", staticProperties: [{ key: "kind", value: "password" }] });
    expect(secrets[0]!.name).toBeUndefined();
    expect(Number(secrets[0]!.createdAtUnixMs)).toBeGreaterThan(Date.now() - 60_000);
    expect(JSON.stringify(secrets)).not.toContain("hunter2");
    const page = await server.client().listSecrets({ paginationOptions: { limit: "1", after: cardId } });
    expect(page.secrets.map((s) => s.secretId)).toEqual([passwordId]);

    // Nowhere in the database — secrets, activities, their intents and results — in clear, hex or base64.
    expect(await server.services.db.query("SELECT id FROM secrets")).toHaveLength(2);
    const tables = await server.services.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    const plaintext = "hunter2-correct-horse";
    const forms = [plaintext, Buffer.from(plaintext).toString("hex"), Buffer.from(plaintext).toString("base64")];
    for (const { table_name } of tables) {
      const rows = await server.services.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
      for (const { row } of rows) for (const form of forms) expect(row, table_name).not.toContain(form);
    }

    // A target serves one secret: the payload cannot be imported again.
    const again = await refusal(
      server.client().importSecrets({
        secrets: [{ secretPayload: password.secretPayload, targetPublicKey: password.targetPublicKey, encryptionSuite: SUITE }],
      }),
    );
    expect(again.code).toBe(9); // FAILED_PRECONDITION, HTTP 400
    expect(again.message).toContain("secrets[0].targetPublicKey: no pending import target");
  });

  it("exports a secret only in a bundle to the caller's key, which decryptSecretBundle opens", async () => {
    expect(await exportAs(server.client(), [passwordId, cardId])).toEqual(["hunter2-correct-horse", "4111 1111 1111 1111 12/30 123"]);
  });

  it("lets policies see declared static properties: an export is denied unless every secret is allowed", async () => {
    const denied = await refusal(exportAs(alice.client, [passwordId]));
    expect(denied.code).toBe(7);
    expect(denied.message).toContain("implicit deny");

    const { policyId } = await server.client().createPolicy({
      policyName: "alice exports passwords",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(user, user.id == '${alice.userId}')`,
      condition: "secret.static_properties['kind'] == 'password' && activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'",
      notes: "",
    });
    expect(await exportAs(alice.client, [passwordId])).toEqual(["hunter2-correct-horse"]);
    expect((await refusal(exportAs(alice.client, [cardId]))).message).toContain("implicit deny");
    // One allowed secret does not carry another along.
    expect((await refusal(exportAs(alice.client, [passwordId, cardId]))).message).toContain("implicit deny");

    await server.client().updatePolicy({ policyId, policyCondition: "activity.type == 'ACTIVITY_TYPE_EXPORT_SECRETS'" });
    const { policyId: denyId } = await server.client().createPolicy({
      policyName: "no cards leave",
      effect: "EFFECT_DENY",
      condition: "secret.static_properties['kind'] == 'creditCard'",
      notes: "",
    });
    expect(await exportAs(alice.client, [passwordId])).toEqual(["hunter2-correct-horse"]);
    const explicit = await refusal(exportAs(alice.client, [passwordId, cardId]));
    expect(explicit.code).toBe(7);
    expect(explicit.message).toContain(`denied by policy ${denyId}`);

    // On a secret without a 'kind' the deny's condition cannot be evaluated; that does not shield the card beside it.
    const [target] = await importTargets(1);
    const bare = await encrypt("no properties", target!);
    const { secretIds } = await server.client().importSecrets({
      secrets: [{ secretPayload: bare.secretPayload, targetPublicKey: bare.targetPublicKey, encryptionSuite: SUITE }],
    });
    expect(await exportAs(alice.client, secretIds)).toEqual(["no properties"]);
    const shielded = await refusal(exportAs(alice.client, [secretIds[0]!, cardId]));
    expect(shielded.message).toContain(`denied by policy ${denyId}`);
  });

  it("refuses bad input naming the field, importing nothing and consuming no target", async () => {
    const [target] = await importTargets(1);
    const sealed = await encrypt("x", target!);
    const duplicate = await refusal(
      server.client().importSecrets({
        secrets: [
          {
            secretPayload: sealed.secretPayload,
            targetPublicKey: sealed.targetPublicKey,
            encryptionSuite: SUITE,
            staticProperties: [
              { key: "kind", value: "a" },
              { key: "kind", value: "b" },
            ],
          },
        ],
      }),
    );
    expect(duplicate.message).toContain('secrets[0].staticProperties[1].key: "kind" appears more than once');
    const garbage = await refusal(
      server.client().importSecrets({
        secrets: [{ secretPayload: "not a payload", targetPublicKey: sealed.targetPublicKey, encryptionSuite: SUITE }],
      }),
    );
    expect(garbage.code).toBe(3);
    expect(garbage.message).toContain("secrets[0].secretPayload: not JSON");
    // A refused import leaves its target usable.
    const { secretIds } = await server.client().importSecrets({
      secrets: [{ secretPayload: sealed.secretPayload, targetPublicKey: sealed.targetPublicKey, encryptionSuite: SUITE }],
    });
    expect(await exportAs(server.client(), secretIds)).toEqual(["x"]);
    const missing = await refusal(
      server.client().exportSecrets({
        secrets: [{ secretId: "no-such-secret", targetPublicKey: generateP256KeyPair().publicKeyUncompressed, encryptionSuite: SUITE }],
      }),
    );
    expect(missing.message).toContain('secrets[0].secretId: no secret "no-such-secret"');
    const badTarget = await refusal(
      server.client().exportSecrets({ secrets: [{ secretId: passwordId, targetPublicKey: "02abcd", encryptionSuite: SUITE }] }),
    );
    expect(badTarget.message).toContain("secrets[0].targetPublicKey");
    await expect(
      http.initImportSecrets({
        type: "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { encryptionSuite: SUITE, numSecrets: 33 },
      }),
    ).rejects.toThrow("parameters.numSecrets: Expected integer to be less or equal to 32");
    expect((await server.client().listSecrets({})).secrets).toHaveLength(4);
  });

  it("binds a 6.6.0 requestContext to an export (kept in the signed intent) and refuses a malformed one", async () => {
    const key = generateP256KeyPair();
    const secrets = [
      {
        secretId: passwordId,
        targetPublicKey: key.publicKeyUncompressed,
        encryptionSuite: SUITE,
        requestContext: [{ key: "ticket", value: "OPS-42" }],
      },
    ];
    const { activity } = await http.exportSecrets({
      type: "ACTIVITY_TYPE_EXPORT_SECRETS",
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { secrets },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.intent.exportSecretsIntent?.secrets[0]?.requestContext).toEqual([{ key: "ticket", value: "OPS-42" }]);
    const malformed = await refusal(
      server.client().exportSecrets({ secrets: [{ ...secrets[0]!, requestContext: [{ key: 7 }] } as never] }),
    );
    expect(malformed.message).toContain("parameters.secrets[0].requestContext[0].key");
  });

  it("deletes secrets all or none, answering their ids in the order asked (delete_secrets, @turnkey/http 6.6.0)", async () => {
    const targets = await importTargets(2);
    const sealed = await Promise.all(["one", "two"].map((plaintext, i) => encrypt(plaintext, targets[i]!)));
    const { secretIds } = await server.client().importSecrets({
      secrets: sealed.map((s) => ({ secretPayload: s.secretPayload, targetPublicKey: s.targetPublicKey, encryptionSuite: SUITE })),
    });
    const del = (ids: string[]) =>
      http.deleteSecrets({
        type: "ACTIVITY_TYPE_DELETE_SECRETS",
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { secretIds: ids },
      });
    const before = (await server.client().listSecrets({})).secrets.length;
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(del([secretIds[1]!, unknown])).rejects.toThrow(`secretIds[1]: no secret "${unknown}"`);
    await expect(del([secretIds[0]!, secretIds[0]!])).rejects.toThrow("secretIds[1]");
    await expect(del(["not-a-uuid"])).rejects.toThrow("parameters.secretIds[0]");
    expect((await server.client().listSecrets({})).secrets).toHaveLength(before);
    const { activity } = await del([secretIds[1]!, secretIds[0]!]);
    expect(activity.type).toBe("ACTIVITY_TYPE_DELETE_SECRETS");
    expect(activity.result.deleteSecretsResult).toEqual({ secretIds: [secretIds[1], secretIds[0]] });
    const left = (await server.client().listSecrets({})).secrets.map((s) => s.secretId);
    expect(left).toHaveLength(before - 2);
    expect(left).not.toContain(secretIds[0]);
  });
});

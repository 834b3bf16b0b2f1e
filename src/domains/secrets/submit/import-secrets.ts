import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { requireTargetKey } from "../../../crypto/target-key.js";
import { alreadyExists, failedPrecondition, invalidField } from "../../../errors.js";
import { IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { openSecretPayload } from "../import-keys.js";
import { checkStaticProperties, EncryptionSuite, SECRET_MAX_BYTES, secretContext, StaticProperties } from "../secrets.js";
import { SECRETS_PER_ACTIVITY } from "./init-import-secrets.js";

const ImportSecretParams = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  secretPayload: Type.String({ minLength: 1, maxLength: 4 * SECRET_MAX_BYTES }),
  targetPublicKey: Type.String({ minLength: 1, maxLength: 256 }),
  encryptionSuite: EncryptionSuite,
  staticProperties: Type.Optional(StaticProperties),
});

export const importSecrets = defineActivity({
  operation: "import_secrets",
  type: "ACTIVITY_TYPE_IMPORT_SECRETS",
  intentKey: "importSecretsIntent",
  resultKey: "importSecretsResult",
  result: Type.Object({ secretIds: IdList() }),
  sdkMethod: "importSecrets",
  summary: "Import secrets, each encrypted to a target key from init_import_secrets, stored sealed with their static properties",
  resource: "SECRET",
  action: "IMPORT",
  policyTarget: { secrets: "secrets", properties: "declared" },
  parameters: Type.Object({ secrets: Type.Array(ImportSecretParams, { minItems: 1, maxItems: SECRETS_PER_ACTIVITY }) }),
  async validate({ db, organization, now }, { secrets }) {
    const names = new Set<string>();
    const targets = new Set<string>();
    for (const [index, secret] of secrets.entries()) {
      const field = `secrets[${index}]`;
      requireTargetKey(secret.targetPublicKey, `${field}.targetPublicKey`);
      const target = secret.targetPublicKey.toLowerCase();
      if (targets.has(target)) throw invalidField(`${field}.targetPublicKey`, "each target key serves one secret; this one is named twice");
      targets.add(target);
      const [pending] = await db.query(
        "SELECT 1 FROM secret_import_keys WHERE target_public_key = $1 AND organization_id = $2 AND expires_at > $3",
        [target, organization.id, now],
      );
      if (!pending)
        throw failedPrecondition(
          `${field}.targetPublicKey: no pending import target ${secret.targetPublicKey} in organization ${organization.id}; call init_import_secrets and encrypt to one of its enclaveTargetMessages`,
          "REQUEST_INVALID",
        );
      checkStaticProperties(secret.staticProperties, `${field}.staticProperties`);
      if (secret.name !== undefined) {
        if (names.has(secret.name)) throw invalidField(`${field}.name`, `${JSON.stringify(secret.name)} is named twice in this request`);
        names.add(secret.name);
      }
    }
  },
  async execute({ tx, organization, now, services }, { secrets }) {
    const secretIds: string[] = [];
    for (const [index, secret] of secrets.entries()) {
      const field = `secrets[${index}]`;
      const plaintext = await openSecretPayload(tx, services, {
        organizationId: organization.id,
        targetPublicKey: secret.targetPublicKey,
        secretPayload: secret.secretPayload,
        now,
        field,
      });
      if (plaintext.length > SECRET_MAX_BYTES)
        throw invalidField(`${field}.secretPayload`, `the secret is longer than ${SECRET_MAX_BYTES} bytes`);
      const id = randomUUID();
      const [inserted] = await tx.query<{ id: string }>(
        `INSERT INTO secrets (id, organization_id, name, sealed_value, static_properties, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING RETURNING id`,
        [
          id,
          organization.id,
          secret.name ?? null,
          services.kek.seal(plaintext, secretContext(id)),
          JSON.stringify(secret.staticProperties ?? []),
          now,
        ],
      );
      if (!inserted)
        throw alreadyExists(
          `${field}.name: a secret named ${JSON.stringify(secret.name)} already exists in organization ${organization.id}`,
        );
      secretIds.push(id);
    }
    return { secretIds };
  },
});

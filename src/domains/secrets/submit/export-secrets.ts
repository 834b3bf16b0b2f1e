import { Type } from "@sinclair/typebox";
import { exportBundle } from "../../../crypto/bundles.js";
import { requireTargetKey } from "../../../crypto/target-key.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { EncryptionSuite, openSecret, requireSecret } from "../secrets.js";
import { SECRETS_PER_ACTIVITY } from "./init-import-secrets.js";

const ExportSecretParams = Type.Object({
  secretId: Id(),
  targetPublicKey: Type.String({ minLength: 1, maxLength: 256 }),
  encryptionSuite: EncryptionSuite,
  /** @turnkey/http 6.6.0: metadata bound to the request; kept in the activity's intent, which the requester signed. */
  requestContext: Type.Optional(
    Type.Array(
      Type.Object({ key: Type.Optional(Type.String({ maxLength: 256 })), value: Type.Optional(Type.String({ maxLength: 4096 })) }),
      {
        maxItems: 64,
      },
    ),
  ),
});

export const exportSecrets = defineActivity({
  operation: "export_secrets",
  type: "ACTIVITY_TYPE_EXPORT_SECRETS",
  intentKey: "exportSecretsIntent",
  resultKey: "exportSecretsResult",
  result: Type.Object({ secretPayloads: Type.Array(Type.String()) }),
  sdkMethod: "exportSecrets",
  summary: "Export secrets, each HPKE-encrypted to the client's key in a payload signed by the server, in the order asked",
  resource: "SECRET",
  action: "EXPORT",
  policyTarget: { secrets: "secrets", properties: "stored" },
  parameters: Type.Object({ secrets: Type.Array(ExportSecretParams, { minItems: 1, maxItems: SECRETS_PER_ACTIVITY }) }),
  async validate({ db, organization }, { secrets }) {
    for (const [index, secret] of secrets.entries()) {
      requireTargetKey(secret.targetPublicKey, `secrets[${index}].targetPublicKey`);
      await mustExist(requireSecret(db, organization.id, secret.secretId, `secrets[${index}].secretId`));
    }
  },
  async execute({ tx, organization, services }, { secrets }) {
    const secretPayloads: string[] = [];
    for (const [index, secret] of secrets.entries()) {
      const target = requireTargetKey(secret.targetPublicKey, `secrets[${index}].targetPublicKey`);
      const row = await requireSecret(tx, organization.id, secret.secretId, `secrets[${index}].secretId`);
      secretPayloads.push(await exportBundle(openSecret(services, row), target, organization.id, services.signer));
    }
    return { secretPayloads };
  },
});

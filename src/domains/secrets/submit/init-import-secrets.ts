import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { createSecretImportTargets } from "../import-keys.js";
import { EncryptionSuite } from "../secrets.js";

/** Targets one init may ask for; the export side's limit per activity is the same. */
export const SECRETS_PER_ACTIVITY = 32;

export const initImportSecrets = defineActivity({
  operation: "init_import_secrets",
  type: "ACTIVITY_TYPE_INIT_IMPORT_SECRETS",
  intentKey: "initImportSecretsIntent",
  resultKey: "initImportSecretsResult",
  result: Type.Object({ enclaveTargetMessages: Type.Array(Type.String()) }),
  sdkMethod: "initImportSecrets",
  summary: "Start a secrets import: one signed, single-use target key per secret to encrypt it to",
  resource: "SECRET",
  action: "IMPORT",
  parameters: Type.Object({
    encryptionSuite: EncryptionSuite,
    numSecrets: Type.Integer({ minimum: 1, maximum: SECRETS_PER_ACTIVITY }),
  }),
  async execute({ tx, organization, now, services }, { numSecrets }) {
    return {
      enclaveTargetMessages: await createSecretImportTargets(tx, services, { organizationId: organization.id, count: numSecrets, now }),
    };
  },
});

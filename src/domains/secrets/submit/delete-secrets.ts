import { Type } from "@sinclair/typebox";
import { invalidField } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireSecret } from "../secrets.js";
import { SECRETS_PER_ACTIVITY } from "./init-import-secrets.js";

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

export const deleteSecrets = defineActivity({
  operation: "delete_secrets",
  type: "ACTIVITY_TYPE_DELETE_SECRETS",
  intentKey: "deleteSecretsIntent",
  resultKey: "deleteSecretsResult",
  result: Type.Object({ secretIds: Type.Array(Type.String()) }),
  sdkMethod: "deleteSecrets",
  summary: "Delete secrets (1 to 32 distinct ids of the organization, all or none); the result lists them in the order asked",
  resource: "SECRET",
  action: "DELETE",
  policyTarget: { secrets: "secretIds", properties: "stored" },
  parameters: Type.Object({
    secretIds: Type.Array(Type.String({ pattern: UUID }), { minItems: 1, maxItems: SECRETS_PER_ACTIVITY }),
  }),
  async validate({ db, organization }, { secretIds }) {
    for (const [index, secretId] of secretIds.entries()) {
      if (secretIds.indexOf(secretId) !== index)
        throw invalidField(`secretIds[${index}]`, `${secretId} is listed twice; each secret is named once`);
      await mustExist(requireSecret(db, organization.id, secretId, `secretIds[${index}]`));
    }
  },
  async execute({ tx, organization }, { secretIds }) {
    for (const [index, secretId] of secretIds.entries()) await requireSecret(tx, organization.id, secretId, `secretIds[${index}]`);
    await tx.query("DELETE FROM secrets WHERE organization_id = $1 AND id = ANY($2::text[])", [organization.id, secretIds]);
    return { secretIds };
  },
});

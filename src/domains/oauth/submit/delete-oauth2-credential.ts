import { Type } from "@sinclair/typebox";
import { requireOauth2Credential } from "../../../records/oauth2-credential.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";

export const deleteOauth2Credential = defineActivity({
  operation: "delete_oauth2_credential",
  type: "ACTIVITY_TYPE_DELETE_OAUTH2_CREDENTIAL",
  intentKey: "deleteOauth2CredentialIntent",
  resultKey: "deleteOauth2CredentialResult",
  result: Type.Object({ oauth2CredentialId: Type.String() }),
  sdkMethod: "deleteOauth2Credential",
  summary: "Delete an OAuth 2.0 credential and its sealed client secret",
  resource: "AUTH",
  action: "DELETE",
  parameters: Type.Object({ oauth2CredentialId: Id("The OAuth 2.0 credential to delete") }),
  async execute({ tx, organization }, { oauth2CredentialId }) {
    await requireOauth2Credential(tx, organization.id, oauth2CredentialId);
    await tx.query("DELETE FROM oauth2_credentials WHERE id = $1 AND organization_id = $2", [oauth2CredentialId, organization.id]);
    return { oauth2CredentialId };
  },
});

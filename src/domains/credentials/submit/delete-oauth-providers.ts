import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkOwnedRows, deleteOwnedRows } from "../delete-owned.js";
import { mustExist } from "../../references.js";

export const deleteOauthProviders = defineActivity({
  operation: "delete_oauth_providers",
  type: "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
  intentKey: "deleteOauthProvidersIntent",
  resultKey: "deleteOauthProvidersResult",
  result: Type.Object({ providerIds: IdList() }),
  sdkMethod: "deleteOauthProviders",
  summary: "Unlink OIDC identities from a user",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({ userId: Id(), providerIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  selfServiceUserId: (params) => params.userId,
  async validate({ db, organization }, { userId, providerIds }) {
    await mustExist(requireUser(db, organization.id, userId));
    await mustExist(
      checkOwnedRows(db, "oauth_providers", "OAuth provider", { organizationId: organization.id, userId }, providerIds, "providerIds"),
    );
  },
  async execute({ tx, organization }, { userId, providerIds }) {
    await requireUser(tx, organization.id, userId);
    return {
      providerIds: await deleteOwnedRows(
        tx,
        "oauth_providers",
        "OAuth provider",
        { organizationId: organization.id, userId },
        providerIds,
        "providerIds",
      ),
    };
  },
});

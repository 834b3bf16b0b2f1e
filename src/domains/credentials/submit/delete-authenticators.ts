import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkOwnedRows, deleteOwnedRows } from "../delete-owned.js";
import { mustExist } from "../../references.js";

export const deleteAuthenticators = defineActivity({
  operation: "delete_authenticators",
  type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
  intentKey: "deleteAuthenticatorsIntent",
  resultKey: "deleteAuthenticatorsResult",
  result: Type.Object({ authenticatorIds: IdList() }),
  sdkMethod: "deleteAuthenticators",
  summary: "Remove passkeys from a user",
  resource: "AUTHENTICATOR",
  action: "DELETE",
  parameters: Type.Object({ userId: Id(), authenticatorIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  selfServiceUserId: (params) => params.userId,
  async validate({ db, organization }, { userId, authenticatorIds }) {
    await mustExist(requireUser(db, organization.id, userId));
    await mustExist(
      checkOwnedRows(
        db,
        "authenticators",
        "authenticator",
        { organizationId: organization.id, userId },
        authenticatorIds,
        "authenticatorIds",
      ),
    );
  },
  async execute({ tx, organization }, { userId, authenticatorIds }) {
    await requireUser(tx, organization.id, userId);
    return {
      authenticatorIds: await deleteOwnedRows(
        tx,
        "authenticators",
        "authenticator",
        { organizationId: organization.id, userId },
        authenticatorIds,
        "authenticatorIds",
      ),
    };
  },
});

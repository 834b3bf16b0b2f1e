import { Type } from "@sinclair/typebox";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { AuthenticatorParams } from "../../credentials/params.js";
import { addAuthenticators, checkNewCredentials } from "../../credentials/credentials.js";
import { requireUser } from "../../../records/user.js";
import { mustExist } from "../../references.js";
import { RECOVERY_CREDENTIAL } from "./init-user-email-recovery.js";

export const recoverUser = defineActivity({
  operation: "recover_user",
  type: "ACTIVITY_TYPE_RECOVER_USER",
  intentKey: "recoverUserIntent",
  resultKey: "recoverUserResult",
  result: Type.Object({ authenticatorId: IdList() }),
  sdkMethod: "recoverUser",
  summary: "Finish email recovery: add a new authenticator (passkey) to the user; the recovery credential is then removed",
  resource: "AUTHENTICATOR",
  action: "CREATE",
  scopedCredentials: ["CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"],
  parameters: Type.Object({ authenticator: AuthenticatorParams, userId: Id() }),
  // The request is stamped with the recovery credential, which is the user's own key.
  selfServiceUserId: (params) => params.userId,
  enrolls: (params) => ({ userId: params.userId, factors: ["passkey"] }),
  async validate({ db, organization }, { authenticator, userId }) {
    await mustExist(requireUser(db, organization.id, userId));
    await checkNewCredentials(
      { authenticators: [authenticator] },
      { apiKeys: "apiKeys", authenticators: "authenticator", oauthProviders: "oauthProviders" },
    );
  },
  async execute({ tx, organization, now, requesterSessionProfileId }, { authenticator, userId }) {
    await requireUser(tx, organization.id, userId);
    const owner = { organizationId: organization.id, userId, now, sessionProfileId: requesterSessionProfileId };
    const authenticatorId = await addAuthenticators(tx, owner, [authenticator], "authenticator");
    await tx.query("DELETE FROM api_keys WHERE user_id = $1 AND credential_type = $2", [userId, RECOVERY_CREDENTIAL]);
    return { authenticatorId };
  },
});

import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { AuthenticatorParams } from "../params.js";
import { addAuthenticators, checkNewCredentials } from "../credentials.js";
import { mustExist } from "../../references.js";

export const createAuthenticators = defineActivity({
  operation: "create_authenticators",
  type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
  intentKey: "createAuthenticatorsIntentV2",
  resultKey: "createAuthenticatorsResult",
  result: Type.Object({ authenticatorIds: IdList() }),
  sdkMethod: "createAuthenticators",
  summary: "Register passkeys (WebAuthn authenticators, verified by their attestation) for a user",
  resource: "AUTHENTICATOR",
  action: "CREATE",
  parameters: Type.Object({ authenticators: Type.Array(AuthenticatorParams, { minItems: 1, maxItems: 10 }), userId: Id() }),
  selfServiceUserId: (params) => params.userId,
  enrolls: (params) => ({ userId: params.userId, factors: ["passkey"] }),
  async validate({ db, organization }, { authenticators, userId }) {
    await mustExist(requireUser(db, organization.id, userId));
    await checkNewCredentials(
      { authenticators },
      { apiKeys: "apiKeys", authenticators: "authenticators", oauthProviders: "oauthProviders" },
    );
  },
  async execute({ tx, organization, now, requesterSessionProfileId }, { authenticators, userId }) {
    await requireUser(tx, organization.id, userId);
    const owner = { organizationId: organization.id, userId, now, sessionProfileId: requesterSessionProfileId };
    return { authenticatorIds: await addAuthenticators(tx, owner, authenticators, "authenticators") };
  },
});

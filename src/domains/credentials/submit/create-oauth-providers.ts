import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity, assertedBySelf } from "../../../operations/activity-definition.js";
import { OauthProviderParams } from "../params.js";
import { checkNewCredentials } from "../credentials.js";
import { addOauthProviders, verifyRegistrationTokens } from "../oauth-providers.js";
import { mustExist } from "../../references.js";

export const createOauthProviders = defineActivity({
  operation: "create_oauth_providers",
  type: "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2",
  intentKey: "createOauthProvidersIntentV2",
  resultKey: "createOauthProvidersResultV2",
  secretFields: { intent: ["oauthProviders[].oidcToken"] },
  result: Type.Object({ providerIds: IdList() }),
  sdkMethod: "createOauthProviders",
  summary: "Link OIDC identities (from a token's or given iss/sub/aud claims) to a user",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({ userId: Id(), oauthProviders: Type.Array(OauthProviderParams, { minItems: 1, maxItems: 10 }) }),
  selfServiceUserId: (params) => params.userId,
  enrolls: (params) => ({ userId: params.userId, factors: ["oauth-provider"] }),
  async validate({ db, organization }, { oauthProviders, userId }) {
    await mustExist(requireUser(db, organization.id, userId));
    await checkNewCredentials(
      { oauthProviders },
      { apiKeys: "apiKeys", authenticators: "authenticators", oauthProviders: "oauthProviders" },
    );
  },
  prepare: (services, { oauthProviders }) => verifyRegistrationTokens(services, oauthProviders),
  async execute(ctx, { userId, oauthProviders }, verifiedTokens) {
    const { tx, organization, now } = ctx;
    await requireUser(tx, organization.id, userId);
    const { ids } = await addOauthProviders(
      tx,
      {
        organizationId: organization.id,
        userId,
        now,
        verifiedTokens,
        bySelf: assertedBySelf(ctx, userId),
        registrationProves: true,
        sessionProfileId: ctx.requesterSessionProfileId,
      },
      oauthProviders,
      "oauthProviders",
    );
    return { providerIds: ids };
  },
});

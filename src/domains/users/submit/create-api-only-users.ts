import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { IdList, Int64String, Name } from "../../../schema/common.js";
import { checkNewUser, createUser, type NewUser } from "../users.js";
import { newUsersEnrollment } from "../../credentials/enrollment.js";

/** The legacy API key shape (apiApiKeyParams): no curve, always P-256. */
const LegacyApiKeyParams = Type.Object({
  apiKeyName: Name("Human-readable name for an API key"),
  publicKey: Type.String({ minLength: 1, maxLength: 256 }),
  expirationSeconds: Type.Optional(Int64String("How long the key lasts, in seconds")),
});

const ApiOnlyUserParams = Type.Object({
  userName: Name("The name of the new API-only user"),
  userEmail: Type.Optional(Type.String({ maxLength: 320 })),
  userTags: Type.Array(Type.String({ minLength: 1 })),
  apiKeys: Type.Array(LegacyApiKeyParams),
});

type ApiOnlyUserInput = (typeof ApiOnlyUserParams)["static"];

/** An API-only user is a user with API keys and nothing else: no passkeys, no OAuth providers, no phone number. */
const asNewUser = (user: ApiOnlyUserInput): NewUser => ({
  userName: user.userName,
  ...(user.userEmail ? { userEmail: user.userEmail } : {}),
  userTags: user.userTags,
  apiKeys: user.apiKeys.map((key) => ({ ...key, curveType: "API_KEY_CURVE_P256" as const })),
  authenticators: [],
  oauthProviders: [],
});

export const createApiOnlyUsers = defineActivity({
  operation: "create_api_only_users",
  type: "ACTIVITY_TYPE_CREATE_API_ONLY_USERS",
  intentKey: "createApiOnlyUsersIntent",
  resultKey: "createApiOnlyUsersResult",
  result: Type.Object({ userIds: IdList() }),
  sdkMethod: "createApiOnlyUsers",
  summary: "Create API-only users (legacy): users with P-256 API keys and tags, without passkeys or OAuth providers",
  resource: "USER",
  action: "CREATE",
  parameters: Type.Object({ apiOnlyUsers: Type.Array(ApiOnlyUserParams, { minItems: 1, maxItems: 100 }) }),
  enrolls: (params) => newUsersEnrollment(params.apiOnlyUsers),
  async validate({ db, organization }, { apiOnlyUsers }) {
    for (const [index, user] of apiOnlyUsers.entries()) await checkNewUser(db, organization.id, asNewUser(user), `apiOnlyUsers[${index}]`);
  },
  async execute({ tx, organization, now, requesterSessionProfileId }, { apiOnlyUsers }) {
    const userIds: string[] = [];
    for (const [index, user] of apiOnlyUsers.entries()) {
      userIds.push(
        await createUser(
          tx,
          { organizationId: organization.id, now, isRoot: false, sessionProfileId: requesterSessionProfileId },
          asNewUser(user),
          `apiOnlyUsers[${index}]`,
        ),
      );
    }
    return { userIds };
  },
});

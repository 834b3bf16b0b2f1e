import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { verifyRegistrationTokens } from "../../credentials/oauth-providers.js";
import { UserParams, createUser, checkNewUser } from "../users.js";
import { IdList } from "../../../schema/common.js";
import { newUsersEnrollment } from "../../credentials/enrollment.js";

export const createUsers = defineActivity({
  operation: "create_users",
  type: "ACTIVITY_TYPE_CREATE_USERS_V4",
  intentKey: "createUsersIntentV4",
  resultKey: "createUsersResult",
  secretFields: { intent: ["users[].oauthProviders[].oidcToken"] },
  result: Type.Object({ userIds: IdList() }),
  sdkMethod: "createUsers",
  summary: "Create users, with their API keys, passkeys, OAuth providers and tags",
  resource: "USER",
  action: "CREATE",
  parameters: Type.Object({ users: Type.Array(UserParams, { minItems: 1, maxItems: 100 }) }),
  enrolls: (params) => newUsersEnrollment(params.users),
  async validate({ db, organization }, { users }) {
    for (const [index, user] of users.entries()) await checkNewUser(db, organization.id, user, `users[${index}]`);
  },
  prepare: (services, { users }) =>
    verifyRegistrationTokens(
      services,
      users.flatMap((user) => user.oauthProviders),
    ),
  async execute({ tx, organization, now, requesterSessionProfileId }, { users }, verifiedTokens) {
    const userIds: string[] = [];
    for (const [index, user] of users.entries()) {
      userIds.push(
        await createUser(
          tx,
          {
            organizationId: organization.id,
            now,
            isRoot: false,
            verifiedTokens,
            registrationProves: true,
            sessionProfileId: requesterSessionProfileId,
          },
          user,
          `users[${index}]`,
        ),
      );
    }
    return { userIds };
  },
});

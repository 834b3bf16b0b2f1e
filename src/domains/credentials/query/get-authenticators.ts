import { Type } from "@sinclair/typebox";
import { authenticatorRecord, type AuthenticatorRow, AuthenticatorRecord } from "../../../records/authenticator.js";
import { requireUser } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getAuthenticators = defineQuery({
  operation: "get_authenticators",
  sdkMethod: "getAuthenticators",
  summary: "A user's passkeys",
  body: Type.Object({ organizationId: Id(), userId: Id() }),
  result: Type.Object({ authenticators: Type.Array(AuthenticatorRecord) }),
  async execute({ organization, services }, { userId }) {
    await requireUser(services.db, organization.id, userId);
    const rows = await services.db.query<AuthenticatorRow>("SELECT * FROM authenticators WHERE user_id = $1 ORDER BY created_at, id", [
      userId,
    ]);
    return { authenticators: rows.map(authenticatorRecord) };
  },
});

import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { authenticatorRecord, type AuthenticatorRow, AuthenticatorRecord } from "../../../records/authenticator.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getAuthenticator = defineQuery({
  operation: "get_authenticator",
  sdkMethod: "getAuthenticator",
  summary: "One passkey of the organization",
  body: Type.Object({ organizationId: Id(), authenticatorId: Id() }),
  result: Type.Object({ authenticator: AuthenticatorRecord }),
  async execute({ organization, services }, { authenticatorId }) {
    const [row] = await services.db.query<AuthenticatorRow>("SELECT * FROM authenticators WHERE id = $1 AND organization_id = $2", [
      authenticatorId,
      organization.id,
    ]);
    if (!row)
      throw notFound(`no authenticator ${JSON.stringify(authenticatorId)} in organization ${organization.id}`, "CREDENTIAL_NOT_FOUND");
    return { authenticator: authenticatorRecord(row) };
  },
});

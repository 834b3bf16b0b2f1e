import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getWhoami = defineQuery({
  operation: "whoami",
  sdkMethod: "getWhoami",
  summary: "The organization and user behind the request's credential",
  subOrganizationCredentials: true,
  scopedCredentials: ["CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"],
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ organizationId: Type.String(), organizationName: Type.String(), userId: Type.String(), username: Type.String() }),
  async execute({ organization, principal, services }) {
    // A parent's credential reading a sub-organization is still the parent's user.
    const [org] = principal.viaParent
      ? await services.db.query<{ id: string; name: string }>("SELECT id, name FROM organizations WHERE id = $1", [
          principal.user.organizationId,
        ])
      : [organization];
    return {
      organizationId: org?.id ?? organization.id,
      organizationName: org?.name ?? organization.name,
      userId: principal.user.id,
      username: principal.user.name,
    };
  },
});

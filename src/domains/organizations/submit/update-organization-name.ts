import { Type } from "@sinclair/typebox";
import { Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";

export const updateOrganizationName = defineActivity({
  operation: "update_organization_name",
  type: "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME",
  intentKey: "updateOrganizationNameIntent",
  resultKey: "updateOrganizationNameResult",
  result: Type.Object({ organizationId: Type.String(), organizationName: Type.String() }),
  sdkMethod: "updateOrganizationName",
  summary: "Rename the organization",
  resource: "ORGANIZATION",
  action: "UPDATE",
  rootQuorumOnly: true,
  parameters: Type.Object({ organizationName: Name() }),
  async execute({ tx, organization, now }, { organizationName }) {
    await tx.query("UPDATE organizations SET name = $2, updated_at = $3 WHERE id = $1", [organization.id, organizationName, now]);
    return { organizationId: organization.id, organizationName };
  },
});

import { defineQuery } from "../../../operations/query-definition.js";
import { SubOrganizationFilter, subOrganizationFilter, subOrganizationIds } from "../sub-organization-ids.js";
import { Type } from "@sinclair/typebox";
import { IdList } from "../../../schema/common.js";

export const listSuborgs = defineQuery({
  operation: "list_suborgs",
  sdkMethod: "getSubOrgIds",
  summary:
    "Ids of the organization's sub-organizations, optionally filtered by name, user, email, phone, public key, credential id or OIDC token",
  body: SubOrganizationFilter,
  result: Type.Object({ organizationIds: IdList() }),
  async execute({ organization, services }, { filterType, filterValue, paginationOptions }) {
    const params: unknown[] = [organization.id];
    let condition = "TRUE";
    if (filterType) {
      const filter = subOrganizationFilter(filterType);
      params.push(...filter.params(filterValue ?? ""));
      condition = filter.condition;
    }
    return { organizationIds: await subOrganizationIds(services.db, condition, params, paginationOptions) };
  },
});

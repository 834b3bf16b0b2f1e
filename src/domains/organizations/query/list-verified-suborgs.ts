import { invalidArgument } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { SubOrganizationFilter, subOrganizationIds } from "../sub-organization-ids.js";
import { Type } from "@sinclair/typebox";
import { IdList } from "../../../schema/common.js";

/** A sub-organization `o` with a user whose email or phone number a verification token proved (and that has not changed since). */
const VERIFIED = {
  EMAIL: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.email_verified_at IS NOT NULL AND lower(u.email) = lower($2))",
  PHONE_NUMBER:
    "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.phone_number_verified_at IS NOT NULL AND u.phone_number = $2)",
};

export const listVerifiedSuborgs = defineQuery({
  operation: "list_verified_suborgs",
  sdkMethod: "getVerifiedSubOrgIds",
  summary:
    "Ids of the organization's sub-organizations with a user whose email or phone number was proven by a verification token (signup, otp_login, update with a token)",
  body: SubOrganizationFilter,
  result: Type.Object({ organizationIds: IdList() }),
  async execute({ organization, services }, { filterType, filterValue, paginationOptions }) {
    if (filterType !== "EMAIL" && filterType !== "PHONE_NUMBER") {
      throw invalidArgument(`filterType: ${JSON.stringify(filterType ?? null)} is not EMAIL or PHONE_NUMBER`, [
        { field: "filterType", description: "must be EMAIL or PHONE_NUMBER" },
      ]);
    }
    if (!filterValue)
      throw invalidArgument("filterValue: the email or phone number to look for is required", [
        { field: "filterValue", description: "required" },
      ]);
    return {
      organizationIds: await subOrganizationIds(services.db, VERIFIED[filterType], [organization.id, filterValue], paginationOptions),
    };
  },
});

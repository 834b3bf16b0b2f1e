import { Type } from "@sinclair/typebox";
import { rootQuorum } from "../organizations.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../pipeline/query-definition.js";

export const getOrganizationConfigs = defineQuery({
  operation: "get_organization_configs",
  sdkMethod: "getOrganizationConfigs",
  summary: "The organization's features and root quorum",
  body: Type.Object({ organizationId: Id() }),
  async execute({ organization, services }) {
    return { configs: { features: organization.features, quorum: await rootQuorum(services.db, organization) } };
  },
});

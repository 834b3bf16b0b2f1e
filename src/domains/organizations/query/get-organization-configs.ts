import { Type } from "@sinclair/typebox";
import { rootQuorum, QuorumRecord } from "../../../records/organization.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Feature } from "../features.js";

export const getOrganizationConfigs = defineQuery({
  operation: "get_organization_configs",
  sdkMethod: "getOrganizationConfigs",
  summary: "The organization's features and root quorum",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ configs: Type.Object({ features: Type.Array(Feature), quorum: QuorumRecord }) }),
  async execute({ organization, services }) {
    return { configs: { features: organization.features, quorum: await rootQuorum(services.db, organization) } };
  },
});

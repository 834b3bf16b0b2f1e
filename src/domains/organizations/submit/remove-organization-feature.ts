import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkFeature, FeatureName, writeFeature, Feature } from "../features.js";

export const removeOrganizationFeature = defineActivity({
  operation: "remove_organization_feature",
  type: "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE",
  intentKey: "removeOrganizationFeatureIntent",
  resultKey: "removeOrganizationFeatureResult",
  result: Type.Object({ features: Type.Array(Feature) }),
  sdkMethod: "removeOrganizationFeature",
  summary: "Remove a feature setting, so the authentication method is back to its default (on); root quorum only",
  resource: "ORGANIZATION",
  action: "UPDATE",
  rootQuorumOnly: true,
  parameters: Type.Object({ name: FeatureName }),
  validate: async (_ctx, { name }) => checkFeature(name, undefined),
  async execute({ tx, organization, now }, { name }) {
    return { features: await writeFeature(tx, organization.id, name, undefined, now) };
  },
});

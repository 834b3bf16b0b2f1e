import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkFeature, FeatureName, writeFeature, Feature } from "../features.js";

export const setOrganizationFeature = defineActivity({
  operation: "set_organization_feature",
  type: "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE",
  intentKey: "setOrganizationFeatureIntent",
  resultKey: "setOrganizationFeatureResult",
  result: Type.Object({ features: Type.Array(Feature) }),
  sdkMethod: "setOrganizationFeature",
  summary:
    'Turn an authentication method (email auth, email recovery, SMS auth, OTP email auth) on ("true") or off ("false"); root quorum only',
  resource: "ORGANIZATION",
  action: "UPDATE",
  rootQuorumOnly: true,
  parameters: Type.Object({ name: FeatureName, value: Type.String({ maxLength: 256 }) }),
  validate: async (_ctx, { name, value }) => checkFeature(name, value),
  async execute({ tx, organization, now }, { name, value }) {
    return { features: await writeFeature(tx, organization.id, name, value, now) };
  },
});

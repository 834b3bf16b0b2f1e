import { Type } from "@sinclair/typebox";
import { failedPrecondition } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";

export const disableAuthProxy = defineActivity({
  operation: "disable_auth_proxy",
  type: "ACTIVITY_TYPE_DISABLE_AUTH_PROXY",
  intentKey: "disableAuthProxyIntent",
  resultKey: "disableAuthProxyResult",
  result: Type.Object({}),
  sdkMethod: "disableAuthProxy",
  summary:
    "Turn off the organization's auth proxy: it refuses every request (403) until enabled again, with its config id and settings kept",
  resource: "AUTH_PROXY",
  action: "DELETE",
  parameters: Type.Object({}),
  async execute({ tx, organization, now }) {
    const updated = await tx.query(
      "UPDATE auth_proxy_configs SET enabled = false, updated_at = $2 WHERE organization_id = $1 RETURNING id",
      [organization.id, now],
    );
    if (updated.length === 0)
      throw failedPrecondition(
        `organization ${organization.id} has no auth proxy; enable_auth_proxy creates one`,
        "AUTH_PROXY_NOT_ENABLED",
      );
    return {};
  },
});

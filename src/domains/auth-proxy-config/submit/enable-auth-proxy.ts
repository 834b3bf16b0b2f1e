import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { failedPrecondition } from "../../../errors.js";
import type { AuthProxyConfigRow } from "../configs.js";
import { createProxyPolicy, createProxyUser } from "../identity.js";
import { defineActivity } from "../../../operations/activity-definition.js";

export const enableAuthProxy = defineActivity({
  operation: "enable_auth_proxy",
  type: "ACTIVITY_TYPE_ENABLE_AUTH_PROXY",
  intentKey: "enableAuthProxyIntent",
  resultKey: "enableAuthProxyResult",
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "enableAuthProxy",
  summary:
    "Turn on the organization's auth proxy: its user, its sealed P-256 API key, the policy allowing its authentication activities, and its configuration",
  resource: "AUTH_PROXY",
  action: "CREATE",
  parameters: Type.Object({}),
  async execute({ tx, organization, now, services }) {
    if (organization.parent_id) {
      throw failedPrecondition(
        `organization ${organization.id} is a sub-organization (of ${organization.parent_id}); only top-level organizations have an auth proxy`,
        "INVALID_ACTIVITY_CALLER",
      );
    }
    const [existing] = await tx.query<AuthProxyConfigRow>("SELECT * FROM auth_proxy_configs WHERE organization_id = $1 FOR UPDATE", [
      organization.id,
    ]);
    if (!existing) {
      const configId = randomUUID();
      const user = await createProxyUser(tx, services, { organizationId: organization.id, configId, now });
      const policyId = await createProxyPolicy(tx, { organizationId: organization.id, configId, userId: user.userId, now });
      await tx.query(
        `INSERT INTO auth_proxy_configs (id, organization_id, user_id, public_key, sealed_private_key, policy_id, enabled, settings, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, '{}'::jsonb, $7, $7)`,
        [configId, organization.id, user.userId, user.publicKey, user.sealedPrivateKey, policyId, now],
      );
      return { userId: user.userId };
    }
    // Enabled again: the same config id and settings. A proxy user or policy an admin deleted meanwhile is recreated.
    let { user_id: userId, public_key: publicKey, sealed_private_key: sealedPrivateKey, policy_id: policyId } = existing;
    const [user] = await tx.query("SELECT 1 FROM users u JOIN api_keys k ON k.user_id = u.id WHERE u.id = $1 AND k.public_key = $2", [
      userId,
      publicKey,
    ]);
    if (!user) {
      ({ userId, publicKey, sealedPrivateKey } = await createProxyUser(tx, services, {
        organizationId: organization.id,
        configId: existing.id,
        now,
      }));
      await tx.query("DELETE FROM policies WHERE id = $1 AND organization_id = $2", [policyId, organization.id]);
    }
    const [policy] = await tx.query("SELECT 1 FROM policies WHERE id = $1", [policyId]);
    if (!policy) policyId = await createProxyPolicy(tx, { organizationId: organization.id, configId: existing.id, userId, now });
    await tx.query(
      "UPDATE auth_proxy_configs SET enabled = true, user_id = $2, public_key = $3, sealed_private_key = $4, policy_id = $5, updated_at = $6 WHERE id = $1",
      [existing.id, userId, publicKey, sealedPrivateKey, policyId, now],
    );
    return { userId };
  },
});

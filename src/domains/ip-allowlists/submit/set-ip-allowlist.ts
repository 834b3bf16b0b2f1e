import { Type } from "@sinclair/typebox";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { allowlistRules, allowlistTarget, requireAllowlistKey } from "../ip-allowlists.js";
import { mustExist } from "../../references.js";

export const setIpAllowlist = defineActivity({
  operation: "set_ip_allowlist",
  type: "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
  intentKey: "setIpAllowlistIntent",
  resultKey: "setIpAllowlistResult",
  result: Type.Object({}),
  sdkMethod: "setIpAllowlist",
  summary: "Replace the organization's (or one API key's) IP allowlist: CIDR rules with labels, enabled, onEvaluationError",
  resource: "ORGANIZATION",
  action: "UPDATE",
  parameters: Type.Object({
    publicKey: Type.Optional(Type.String()),
    enabled: Type.Optional(Type.Boolean()),
    rules: Type.Optional(
      Type.Array(Type.Object({ cidr: Type.String(), label: Type.Optional(Type.String({ maxLength: 256 })) }), { maxItems: 100 }),
    ),
    onEvaluationError: Type.Optional(StringEnum(["ALLOW", "DENY"])),
  }),
  async validate({ db, organization, now }, params) {
    if (params.publicKey) await mustExist(requireAllowlistKey(db, organization.id, params.publicKey));
    allowlistRules(params.rules ?? [], now);
  },
  async execute({ tx, organization, now }, params) {
    const publicKey = await allowlistTarget(tx, organization, params.publicKey);
    const rules = allowlistRules(params.rules ?? [], now);
    await tx.query(
      `INSERT INTO ip_allowlists (organization_id, public_key, enabled, on_evaluation_error, rules, updated_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)
       ON CONFLICT (organization_id, public_key) DO UPDATE SET enabled = EXCLUDED.enabled, on_evaluation_error = EXCLUDED.on_evaluation_error, rules = EXCLUDED.rules, updated_at = EXCLUDED.updated_at`,
      [
        organization.id,
        publicKey,
        publicKey ? true : (params.enabled ?? false),
        params.onEvaluationError ?? "DENY",
        JSON.stringify(rules),
        now,
      ],
    );
    return {};
  },
});

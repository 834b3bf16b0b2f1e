import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { allowlistTarget, requireAllowlistKey } from "../ip-allowlists.js";
import { mustExist } from "../../references.js";

export const removeIpAllowlist = defineActivity({
  operation: "remove_ip_allowlist",
  type: "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
  intentKey: "removeIpAllowlistIntent",
  resultKey: "removeIpAllowlistResult",
  result: Type.Object({}),
  sdkMethod: "removeIpAllowlist",
  summary: "Remove the organization's (or one API key's) IP allowlist; access falls back to the next applicable list",
  resource: "ORGANIZATION",
  action: "UPDATE",
  parameters: Type.Object({ publicKey: Type.Optional(Type.String()) }),
  async validate({ db, organization }, { publicKey }) {
    if (publicKey) await mustExist(requireAllowlistKey(db, organization.id, publicKey));
  },
  async execute({ tx, organization }, { publicKey }) {
    await tx.query("DELETE FROM ip_allowlists WHERE organization_id = $1 AND public_key = $2", [
      organization.id,
      await allowlistTarget(tx, organization, publicKey),
    ]);
    return {};
  },
});

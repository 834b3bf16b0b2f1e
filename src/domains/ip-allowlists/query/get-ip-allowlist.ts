import { Type } from "@sinclair/typebox";
import type { AllowlistRule } from "../../../records/ip-allowlist.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { IpAllowlistRecord } from "../ip-allowlists.js";

export const getIpAllowlist = defineQuery({
  operation: "get_ip_allowlist",
  sdkMethod: "getIpAllowlist",
  summary: "The organization's IP allowlist, or one API key's; an empty rule list when none is set",
  body: Type.Object({ organizationId: Id(), publicKey: Type.Optional(Type.String()) }),
  result: Type.Object({ allowlist: IpAllowlistRecord }),
  async execute({ organization, services }, { publicKey }) {
    const key = publicKey?.toLowerCase() ?? "";
    const [row] = await services.db.query<{ enabled: boolean; on_evaluation_error: string; rules: AllowlistRule[] }>(
      "SELECT enabled, on_evaluation_error, rules FROM ip_allowlists WHERE organization_id = $1 AND public_key = $2",
      [organization.id, key],
    );
    return {
      allowlist: {
        organizationId: organization.id,
        rules: row?.rules ?? [],
        ...(key ? { publicKey: key } : { enabled: row?.enabled ?? false }),
        ...(row ? { onEvaluationError: row.on_evaluation_error } : {}),
      },
    };
  },
});

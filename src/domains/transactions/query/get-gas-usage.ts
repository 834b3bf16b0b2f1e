import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";

/**
 * Gas usage of sponsored transactions. Strongroom sponsors none (sponsorship needs the hosted paymaster): the
 * truthful answer is no window, no limit and no usage, whatever the organization sent (its senders paid their gas).
 */
export const getGasUsage = defineQuery({
  operation: "get_gas_usage",
  sdkMethod: "getGasUsage",
  summary: "Sponsored gas usage: always none (window 0, limit 0 USD, usage 0 USD): a self-hosted server sponsors no gas",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ windowDurationMinutes: Type.Integer(), windowLimitUsd: Type.String(), usageUsd: Type.String() }),
  async execute() {
    return { windowDurationMinutes: 0, windowLimitUsd: "0", usageUsd: "0" };
  },
});

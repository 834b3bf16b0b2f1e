import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import {
  smartContractInterfaceRecord,
  type SmartContractInterfaceRow,
  SmartContractInterfaceRecord,
} from "../../../records/smart-contract-interface.js";

export const listSmartContractInterfaces = defineQuery({
  operation: "list_smart_contract_interfaces",
  sdkMethod: "getSmartContractInterfaces",
  summary: "Every smart contract interface of the organization, oldest first",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ smartContractInterfaces: Type.Array(SmartContractInterfaceRecord) }),
  async execute({ organization, services }) {
    const rows = await services.db.query<SmartContractInterfaceRow>(
      "SELECT * FROM smart_contract_interfaces WHERE organization_id = $1 ORDER BY seq",
      [organization.id],
    );
    return { smartContractInterfaces: rows.map(smartContractInterfaceRecord) };
  },
});

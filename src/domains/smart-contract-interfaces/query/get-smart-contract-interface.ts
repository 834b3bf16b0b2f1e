import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import {
  smartContractInterfaceRecord,
  type SmartContractInterfaceRow,
  SmartContractInterfaceRecord,
} from "../../../records/smart-contract-interface.js";

export const getSmartContractInterface = defineQuery({
  operation: "get_smart_contract_interface",
  sdkMethod: "getSmartContractInterface",
  summary: "One smart contract interface",
  body: Type.Object({ organizationId: Id(), smartContractInterfaceId: Id() }),
  result: Type.Object({ smartContractInterface: SmartContractInterfaceRecord }),
  async execute({ organization, services }, { smartContractInterfaceId }) {
    const [row] = await services.db.query<SmartContractInterfaceRow>(
      "SELECT * FROM smart_contract_interfaces WHERE id = $1 AND organization_id = $2",
      [smartContractInterfaceId, organization.id],
    );
    if (!row)
      throw notFound(
        `smartContractInterfaceId: no smart contract interface ${JSON.stringify(smartContractInterfaceId)} in organization ${organization.id}`,
      );
    return { smartContractInterface: smartContractInterfaceRecord(row) };
  },
});

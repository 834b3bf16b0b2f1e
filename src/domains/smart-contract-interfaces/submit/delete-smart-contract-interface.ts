import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireSmartContractInterface } from "../../../records/smart-contract-interface.js";

export const deleteSmartContractInterface = defineActivity({
  operation: "delete_smart_contract_interface",
  type: "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
  intentKey: "deleteSmartContractInterfaceIntent",
  resultKey: "deleteSmartContractInterfaceResult",
  result: Type.Object({ smartContractInterfaceId: Type.String() }),
  sdkMethod: "deleteSmartContractInterface",
  summary: "Delete a smart contract interface",
  resource: "SMART_CONTRACT_INTERFACE",
  action: "DELETE",
  parameters: Type.Object({ smartContractInterfaceId: Id() }),
  async validate({ db, organization }, { smartContractInterfaceId }) {
    await mustExist(requireSmartContractInterface(db, organization.id, smartContractInterfaceId));
  },
  async execute({ tx, organization }, { smartContractInterfaceId }) {
    const deleted = await tx.query("DELETE FROM smart_contract_interfaces WHERE id = $1 AND organization_id = $2 RETURNING id", [
      smartContractInterfaceId,
      organization.id,
    ]);
    if (deleted.length === 0)
      throw notFound(
        `smartContractInterfaceId: no smart contract interface ${JSON.stringify(smartContractInterfaceId)} in organization ${organization.id}`,
      );
    return { smartContractInterfaceId };
  },
});

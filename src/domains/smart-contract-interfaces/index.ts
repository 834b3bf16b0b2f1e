import type { Domain } from "../../operations/domain.js";
import { createSmartContractInterface } from "./submit/create-smart-contract-interface.js";
import { deleteSmartContractInterface } from "./submit/delete-smart-contract-interface.js";
import { getSmartContractInterface } from "./query/get-smart-contract-interface.js";
import { listSmartContractInterfaces } from "./query/list-smart-contract-interfaces.js";

export const smartContractInterfacesDomain: Domain = {
  name: "smart-contract-interfaces",
  activities: [createSmartContractInterface, deleteSmartContractInterface],
  queries: [getSmartContractInterface, listSmartContractInterfaces],
};

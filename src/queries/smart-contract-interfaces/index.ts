import type { QueryDefinition } from "../definition.js";
import { getSmartContractInterface } from "./get-smart-contract-interface.js";
import { listSmartContractInterfaces } from "./list-smart-contract-interfaces.js";

export const smartContractInterfaceQueries: QueryDefinition[] = [getSmartContractInterface, listSmartContractInterfaces];

import type { ActivityDefinition } from "../definition.js";
import { createSmartContractInterface } from "./create-smart-contract-interface.js";
import { deleteSmartContractInterface } from "./delete-smart-contract-interface.js";

export const smartContractInterfaceActivities: ActivityDefinition[] = [createSmartContractInterface, deleteSmartContractInterface];

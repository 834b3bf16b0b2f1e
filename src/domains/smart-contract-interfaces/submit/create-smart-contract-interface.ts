import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { invalidArgument } from "../../../errors.js";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";

/** Documented: an ABI or IDL of at most 400 kB. */
const MAX_INTERFACE_BYTES = 400 * 1024;

export const createSmartContractInterface = defineActivity({
  operation: "create_smart_contract_interface",
  type: "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
  intentKey: "createSmartContractInterfaceIntent",
  resultKey: "createSmartContractInterfaceResult",
  result: Type.Object({ smartContractInterfaceId: Type.String() }),
  sdkMethod: "createSmartContractInterface",
  summary: "Upload an Ethereum ABI or Solana IDL for an address, so policies can read eth.tx.function_name and contract_call_args",
  resource: "SMART_CONTRACT_INTERFACE",
  action: "CREATE",
  parameters: Type.Object({
    smartContractAddress: Type.String({ minLength: 1, maxLength: 256 }),
    smartContractInterface: Type.String({ minLength: 2 }),
    type: StringEnum(["SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"]),
    label: Type.String({ minLength: 1, maxLength: 256 }),
    notes: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  validate: async (_ctx, p) => checkInterface(p.smartContractInterface, p.type),
  async execute({ tx, organization, now }, p) {
    const smartContractInterfaceId = randomUUID();
    await tx.query(
      `INSERT INTO smart_contract_interfaces (id, organization_id, address, type, label, notes, interface, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [smartContractInterfaceId, organization.id, p.smartContractAddress, p.type, p.label, p.notes ?? "", p.smartContractInterface, now],
    );
    return { smartContractInterfaceId };
  },
});

/** The interface's input checks (for `validate`): its size, and JSON of the type's shape. */
function checkInterface(smartContractInterface: string, type: string): void {
  if (Buffer.byteLength(smartContractInterface) > MAX_INTERFACE_BYTES) {
    throw invalidArgument("smartContractInterface: larger than the 400 kB limit", [
      { field: "smartContractInterface", description: "at most 400 kB" },
    ]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(smartContractInterface);
  } catch {
    throw invalidArgument("smartContractInterface: not JSON; upload the ABI (a JSON array) or IDL (a JSON object) as a string", [
      { field: "smartContractInterface", description: "must be JSON" },
    ]);
  }
  const ethereum = type === "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM";
  if (ethereum ? !Array.isArray(parsed) : typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    const wanted = ethereum ? "an Ethereum ABI must be a JSON array" : "a Solana IDL must be a JSON object";
    throw invalidArgument(`smartContractInterface: ${wanted}`, [{ field: "smartContractInterface", description: wanted }]);
  }
}

import { keccak256, pad, toHex, type Hex } from "viem";
import type { Rpc } from "./anvil.js";

/**
 * A minimal ERC-20 (balanceOf, transfer with its Transfer event; a transfer above the balance reverts with
 * Error("insufficient balance")), assembled here so the tests need no Solidity compiler. Balances live at
 * keccak256(address as 32 bytes), which the tests set with anvil_setStorageAt.
 */
const OPS: Record<string, number> = {
  ADD: 0x01, SUB: 0x03, LT: 0x10, EQ: 0x14, SHR: 0x1c, SHA3: 0x20, CALLER: 0x33, CALLDATALOAD: 0x35, MSTORE: 0x52,
  SLOAD: 0x54, SSTORE: 0x55, JUMPI: 0x57, JUMPDEST: 0x5b, DUP1: 0x80, DUP3: 0x82, DUP4: 0x83, SWAP1: 0x90, LOG3: 0xa3,
  RETURN: 0xf3, REVERT: 0xfd,
}; // prettier-ignore

type Item = string | { push: Hex } | { label: string } | { jump: string };

const TRANSFER_TOPIC = keccak256(toHex("Transfer(address,address,uint256)"));
const REASON = "insufficient balance";

const program: Item[] = [
  { push: "0x00" }, "CALLDATALOAD", { push: "0xe0" }, "SHR",
  "DUP1", { push: "0x70a08231" }, "EQ", { jump: "balanceOf" }, "JUMPI",
  "DUP1", { push: "0xa9059cbb" }, "EQ", { jump: "transfer" }, "JUMPI",
  { push: "0x00" }, { push: "0x00" }, "REVERT",
  { label: "balanceOf" },
  { push: "0x04" }, "CALLDATALOAD", { push: "0x00" }, "MSTORE", { push: "0x20" }, { push: "0x00" }, "SHA3", "SLOAD",
  { push: "0x00" }, "MSTORE", { push: "0x20" }, { push: "0x00" }, "RETURN",
  { label: "transfer" },
  "CALLER", { push: "0x00" }, "MSTORE", { push: "0x20" }, { push: "0x00" }, "SHA3", // fromSlot
  "DUP1", "SLOAD", { push: "0x24" }, "CALLDATALOAD", // fromSlot fromBal amount
  "DUP1", "DUP3", "LT", { jump: "insufficient" }, "JUMPI",
  "DUP1", "DUP3", "SUB", "DUP4", "SSTORE", // balances[from] = fromBal - amount
  { push: "0x04" }, "CALLDATALOAD", { push: "0x00" }, "MSTORE", { push: "0x20" }, { push: "0x00" }, "SHA3", // toSlot
  "DUP1", "SLOAD", "DUP3", "ADD", "SWAP1", "SSTORE", // balances[to] += amount
  "DUP1", { push: "0x00" }, "MSTORE", { push: "0x04" }, "CALLDATALOAD", "CALLER", { push: TRANSFER_TOPIC }, { push: "0x20" }, { push: "0x00" }, "LOG3",
  { push: "0x01" }, { push: "0x00" }, "MSTORE", { push: "0x20" }, { push: "0x00" }, "RETURN",
  { label: "insufficient" },
  { push: pad("0x08c379a0", { dir: "right", size: 32 }) }, { push: "0x00" }, "MSTORE",
  { push: "0x20" }, { push: "0x04" }, "MSTORE",
  { push: toHex(REASON.length) }, { push: "0x24" }, "MSTORE",
  { push: pad(toHex(REASON), { dir: "right", size: 32 }) }, { push: "0x44" }, "MSTORE",
  { push: "0x64" }, { push: "0x00" }, "REVERT",
]; // prettier-ignore

function assemble(items: Item[]): Hex {
  const sizeOf = (item: Item) => (typeof item === "string" ? 1 : "push" in item ? 1 + (item.push.length - 2) / 2 : "jump" in item ? 3 : 1);
  const labels = new Map<string, number>();
  let offset = 0;
  for (const item of items) {
    if (typeof item === "object" && "label" in item) labels.set(item.label, offset);
    offset += sizeOf(item);
  }
  const bytes: number[] = [];
  for (const item of items) {
    if (typeof item === "string") bytes.push(OPS[item]!);
    else if ("label" in item) bytes.push(OPS.JUMPDEST!);
    else if ("jump" in item) bytes.push(0x61, labels.get(item.jump)! >> 8, labels.get(item.jump)! & 0xff);
    else {
      const data = Buffer.from(item.push.slice(2), "hex");
      bytes.push(0x5f + data.length, ...data);
    }
  }
  return `0x${Buffer.from(bytes).toString("hex")}`;
}

export const TOKEN_RUNTIME = assemble(program);
export const TOKEN_REVERT_REASON = REASON;

export const ERC20_ABI = [
  {
    type: "function",
    name: "balanceOf",
    stateMutability: "view",
    inputs: [{ name: "owner", type: "address" }],
    outputs: [{ type: "uint256" }],
  },
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const;

/** Puts the token at `address` on an anvil node and gives `holder` a balance. */
export async function deployToken(rpc: Rpc, address: Hex, holder: Hex, balance: bigint): Promise<void> {
  await rpc("anvil_setCode", [address, TOKEN_RUNTIME]);
  await rpc("anvil_setStorageAt", [address, keccak256(pad(holder.toLowerCase() as Hex)), pad(toHex(balance))]);
}

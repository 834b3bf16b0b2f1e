/**
 * The CAIP-19 assets a chainAssetTransfer control can measure, and which of them a measured transfer is.
 * Measured: the native coin (`slip44:<coin type>`) and ERC-20 tokens (`erc20:<contract>`) of EVM chains
 * (`eip155:<chain id>`), and SOL (`slip44:501`) and SPL tokens (`token:<mint>`) of Solana clusters
 * (`solana:<genesis hash prefix>`). Other namespaces are refused when the control is created.
 */
import type { AssetTransfer } from "../../operations/activity-definition.js";

export interface ControlAsset {
  namespace: "eip155" | "solana";
  /** The CAIP-2 reference: the EVM chain id (decimal) or the Solana cluster's genesis hash prefix. */
  chain: string;
  kind: "native" | "token";
  /** A token's contract (lowercase 0x-address) or mint (base58); "" for the native coin. */
  token: string;
  decimals: number;
}

const CAIP19 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-.%a-zA-Z0-9]{1,128})$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A control's asset from its CAIP-19 id and decimals, or why it cannot be measured. */
export function parseControlAsset(caip19: string, decimals: number): ControlAsset | string {
  const match = CAIP19.exec(caip19);
  if (!match) return `${JSON.stringify(caip19)} is not a CAIP-19 asset id (<namespace>:<chain>/<asset namespace>:<asset reference>)`;
  const [, namespace, chain, assetNamespace, reference] = match as unknown as [string, string, string, string, string];
  if (namespace === "eip155") {
    if (!/^[1-9]\d{0,19}$/.test(chain)) return `${JSON.stringify(caip19)}: an eip155 chain reference is a decimal chain id`;
    if (assetNamespace === "slip44" && /^\d{1,10}$/.test(reference)) return { namespace, chain, kind: "native", token: "", decimals };
    if (assetNamespace === "erc20" && /^0x[0-9a-fA-F]{40}$/.test(reference))
      return { namespace, chain, kind: "token", token: reference.toLowerCase(), decimals };
    return `${JSON.stringify(caip19)}: on eip155 chains a control measures slip44:<coin type> (the native coin) and erc20:<contract address>`;
  }
  if (namespace === "solana") {
    if (assetNamespace === "slip44" && reference === "501") return { namespace, chain, kind: "native", token: "", decimals };
    if (assetNamespace === "token" && BASE58.test(reference)) return { namespace, chain, kind: "token", token: reference, decimals };
    return `${JSON.stringify(caip19)}: on solana a control measures slip44:501 (SOL) and token:<mint address> (SPL tokens)`;
  }
  return `${JSON.stringify(caip19)}: transfers on ${namespace} chains are not measured; a control measures eip155 (native coin, ERC-20) and solana (SOL, SPL) assets`;
}

/**
 * Whether a transfer may be of this asset. A transfer whose chain is unknown (a legacy Ethereum transaction
 * without a chain id, which any chain accepts; any Solana transaction, which names no cluster) may be on any
 * chain of its namespace; an SPL Transfer that names no mint may be of any SPL token.
 */
export function mayBe(transfer: AssetTransfer, asset: ControlAsset): boolean {
  if (transfer.namespace !== asset.namespace || transfer.kind !== asset.kind) return false;
  if (transfer.chain !== undefined && transfer.chain !== asset.chain) return false;
  return transfer.token === undefined || transfer.token === asset.token;
}

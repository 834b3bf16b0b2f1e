import type { AssetSetting } from "../../config.js";
import { normalizeSolanaCaip2 } from "../../chains/chains.js";

/** An asset of a chain as the API names it: its CAIP-19 id, and for a token, its contract or mint. */
export interface ChainAsset {
  caip19: string;
  symbol: string;
  name: string;
  decimals: number;
  logoUrl?: string;
  stable?: boolean;
  /** The ERC-20 contract or SPL mint; none for the native asset. */
  address?: string;
}

const NATIVE: Record<"eip155" | "solana", Omit<ChainAsset, "caip19">> = {
  eip155: { symbol: "ETH", name: "Ethereum", decimals: 18 },
  solana: { symbol: "SOL", name: "Solana", decimals: 9 },
};

/**
 * The chain's assets: its native asset (CAIP-19 `slip44:60` on EVM chains, `slip44:501` on Solana; named by a
 * CHAIN_ASSETS entry without an address, else ETH / SOL) and the tokens CHAIN_ASSETS lists for it
 * (`erc20:<address>`, `token:<mint>`).
 */
export function assetsOf(assets: Record<string, AssetSetting[]>, caip2: string): ChainAsset[] {
  const id = caip2.startsWith("solana:") ? normalizeSolanaCaip2(caip2) : caip2;
  const family = id.startsWith("solana:") ? "solana" : "eip155";
  const listed = assets[id] ?? [];
  const nativeSetting = listed.find((a) => a.address === undefined);
  const native: ChainAsset = {
    ...NATIVE[family],
    ...(nativeSetting ? { symbol: nativeSetting.symbol, name: nativeSetting.name, decimals: nativeSetting.decimals } : {}),
    caip19: `${id}/slip44:${family === "solana" ? 501 : 60}`,
  };
  const tokens = listed
    .filter((a) => a.address !== undefined)
    .map((a) => ({
      caip19: `${id}/${family === "solana" ? "token" : "erc20"}:${family === "solana" ? a.address! : a.address!.toLowerCase()}`,
      symbol: a.symbol,
      name: a.name,
      decimals: a.decimals,
      ...(a.logoUrl ? { logoUrl: a.logoUrl } : {}),
      ...(a.stable !== undefined ? { stable: a.stable } : {}),
      address: a.address!,
    }));
  return [native, ...tokens];
}

/** An amount in atomic units as a decimal string for display (`1.5` for 1500000000000000000 wei). */
export function displayAmount(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

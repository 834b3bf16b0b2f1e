import { createRequire } from "node:module";

/**
 * The chain libraries only some operations need, loaded on first use instead of at start: viem (about 450
 * modules, for EIP-712 and EIP-7702 digests, Ethereum RLP and ABI decoding, and the EVM nodes' JSON-RPC clients),
 * @solana/kit (Solana nodes' JSON-RPC clients) and @ton/core (TON addresses). Loaded with `require` (their
 * CommonJS builds), so the modules that use them stay synchronous; the first use pays the load once (about half
 * a second for viem on a quiet machine). Modules elsewhere import only their types (`import type`).
 */
const require = createRequire(import.meta.url);
let viemModule: typeof import("viem") | undefined;
let viemUtilsModule: typeof import("viem/utils") | undefined;
let solanaKitModule: typeof import("@solana/kit") | undefined;
let tonCoreModule: typeof import("@ton/core") | undefined;

export const viem = (): typeof import("viem") => (viemModule ??= require("viem") as typeof import("viem"));
export const viemUtils = (): typeof import("viem/utils") => (viemUtilsModule ??= require("viem/utils") as typeof import("viem/utils"));
export const solanaKit = (): typeof import("@solana/kit") => (solanaKitModule ??= require("@solana/kit") as typeof import("@solana/kit"));
export const tonCore = (): typeof import("@ton/core") => (tonCoreModule ??= require("@ton/core") as typeof import("@ton/core"));

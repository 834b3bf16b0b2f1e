import type { Rpc, SolanaRpcApi } from "@solana/kit";
import type { PublicClient } from "viem";
import { CHAIN_RPC_URLS_SETTING, type ChainSettings } from "../config.js";
import { solanaKit, viem } from "../crypto/chain-libraries.js";
import { ApiError, GrpcCode, invalidArgument } from "../errors.js";

/** One EVM chain Strongroom talks to: its CAIP-2 id, its numeric id and a viem public client over its URLs (in order, failover). */
export interface EvmChain {
  caip2: string;
  chainId: number;
  client: PublicClient;
}

/** One Solana cluster: its CAIP-2 id and @solana/kit clients of its JSON-RPC URLs, tried in order (`call`). */
export interface SolanaChain {
  caip2: string;
  /** Runs `request` on the first URL whose node answers; a node that answered with an error is not asked again elsewhere. */
  call<T>(request: (rpc: Rpc<SolanaRpcApi>) => Promise<T>): Promise<T>;
}

/** The API's aliases and full-length genesis hashes of Solana clusters, normalized to CAIP-2's 32-character reference. */
const SOLANA_ALIASES: Record<string, string> = {
  "solana:mainnet": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  "solana:devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  "solana:testnet": "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
};

export function normalizeSolanaCaip2(caip2: string): string {
  const aliased = SOLANA_ALIASES[caip2] ?? caip2;
  const match = /^solana:([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(aliased);
  return match ? `solana:${match[1]!.slice(0, 32)}` : aliased;
}

/** A node that was not reached or did not answer (as opposed to one that answered with a JSON-RPC error: negative codes). */
export function isUnreachable(error: unknown): boolean {
  return !(solanaKit().isSolanaError(error) && (error.context as { __code: number }).__code < 0);
}

export class Chains {
  private readonly evmChains = new Map<string, EvmChain>();
  /** EVM_RPC_URL's chain, once its node has answered eth_chainId. */
  private evmRpcUrlChain?: Promise<EvmChain>;

  constructor(readonly settings: ChainSettings) {}

  /** Whether anything at all is configured (the broadcaster runs only then). */
  get anyConfigured(): boolean {
    return this.settings.evmRpcUrl !== undefined || Object.keys(this.settings.rpcUrls).length > 0;
  }

  /** Whether an EVM chain is configured (the block watcher runs only then). */
  get anyEvmConfigured(): boolean {
    return this.settings.evmRpcUrl !== undefined || Object.keys(this.settings.rpcUrls).some((id) => id.startsWith("eip155:"));
  }

  /** The EVM chains' CAIP-2 ids: CHAIN_RPC_URLS's, and EVM_RPC_URL's once its node answered. */
  async evmIds(): Promise<string[]> {
    return (await this.configuredIds()).filter((id) => id.startsWith("eip155:"));
  }

  /** The CAIP-2 ids known without asking a node: CHAIN_RPC_URLS's, and EVM_RPC_URL's once it answered. */
  async configuredIds(): Promise<string[]> {
    const ids = new Set(Object.keys(this.settings.rpcUrls));
    const fromNode = await this.evmRpcUrlChainId().catch(() => undefined);
    if (fromNode) ids.add(fromNode.caip2);
    return [...ids].sort();
  }

  /** The EVM chain of a CAIP-2 id (`eip155:<id>`); a 400 naming the setting when it is not configured. */
  async evm(caip2: string, field = "caip2"): Promise<EvmChain> {
    const match = /^eip155:([1-9][0-9]{0,15})$/.exec(caip2);
    if (!match)
      throw invalidArgument(`${field}: ${JSON.stringify(caip2)} is not an EVM chain (eip155:<chain id>)`, [
        { field, description: "must be eip155:<chain id>" },
      ]);
    const known = this.evmChains.get(caip2);
    if (known) return known;
    const urls = this.settings.rpcUrls[caip2];
    if (urls) {
      const chain = { caip2, chainId: Number(match[1]), client: this.client(urls) };
      this.evmChains.set(caip2, chain);
      return chain;
    }
    if (this.settings.evmRpcUrl) {
      let fromNode: EvmChain;
      try {
        fromNode = await this.evmRpcUrlChainId();
      } catch (error) {
        throw new ApiError(
          GrpcCode.UNAVAILABLE,
          `${field}: ${caip2} is not in ${CHAIN_RPC_URLS_SETTING}, and the node at EVM_RPC_URL did not say which chain it serves (${(error as Error).message})`,
          "CHAIN_UNAVAILABLE",
        );
      }
      if (fromNode.caip2 === caip2) return fromNode;
    }
    throw this.notConfigured(caip2, field);
  }

  /**
   * The Solana cluster of a CAIP-2 id (`solana:<genesis hash prefix>`, or the API's aliases `solana:mainnet`,
   * `solana:devnet`); a 400 naming the setting when it is not configured.
   */
  solana(caip2: string, field = "caip2"): SolanaChain {
    const id = normalizeSolanaCaip2(caip2);
    const known = this.solanaChains.get(id);
    if (known) return known;
    const urls = this.settings.rpcUrls[id];
    if (!id.startsWith("solana:") || !urls) throw this.notConfigured(caip2, field);
    const rpcs = urls.map((url) => solanaKit().createSolanaRpc(url));
    const timeoutMs = this.settings.timeoutMs;
    const chain: SolanaChain = {
      caip2: id,
      async call(request) {
        let last: unknown;
        for (const rpc of rpcs) {
          try {
            return await withTimeout(request(rpc), timeoutMs);
          } catch (error) {
            if (!isUnreachable(error)) throw error;
            last = error;
          }
        }
        throw last;
      },
    };
    this.solanaChains.set(id, chain);
    return chain;
  }

  private readonly solanaChains = new Map<string, SolanaChain>();

  notConfigured(caip2: string, field = "caip2"): ApiError {
    const hint = this.settings.evmRpcUrl ? ` (EVM_RPC_URL serves ${this.evmChainOfUrl ?? "a chain not yet read"})` : "";
    return invalidArgument(
      `${field}: chain ${caip2} is not configured on this server; add it to ${CHAIN_RPC_URLS_SETTING} as ${caip2}=<rpc url>${hint}`,
      "CHAIN_NOT_CONFIGURED",
      [{ field, description: `chain ${caip2} is not configured (${CHAIN_RPC_URLS_SETTING})` }],
    );
  }

  private evmChainOfUrl?: string;

  private evmRpcUrlChainId(): Promise<EvmChain> {
    const url = this.settings.evmRpcUrl;
    if (!url) return Promise.reject(new Error("EVM_RPC_URL is not set"));
    this.evmRpcUrlChain ??= (async () => {
      const client = this.client([url]);
      const chainId = await client.getChainId();
      const chain = { caip2: `eip155:${chainId}`, chainId, client };
      this.evmChainOfUrl = chain.caip2;
      // CHAIN_RPC_URLS names the same chain: its URLs come first, EVM_RPC_URL after them.
      const listed = this.settings.rpcUrls[chain.caip2];
      return listed ? { ...chain, client: this.client([...listed, url]) } : chain;
    })();
    // A node that did not answer is asked again next time.
    this.evmRpcUrlChain.catch(() => (this.evmRpcUrlChain = undefined));
    return this.evmRpcUrlChain;
  }

  private client(urls: string[]): PublicClient {
    const { timeoutMs } = this.settings;
    const { createPublicClient, fallback, http } = viem();
    const transports = urls.map((url) => http(url, { timeout: timeoutMs, retryCount: 0 }));
    return createPublicClient({
      transport: transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0 }),
      // Strongroom reads one call at a time; batching would only delay them.
      batch: { multicall: false },
      // The latest block number is read fresh each time (viem would keep it for its polling interval, 4 s).
      cacheTime: 0,
    }) as PublicClient;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

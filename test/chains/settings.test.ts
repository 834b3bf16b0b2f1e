import { describe, expect, it } from "vitest";
import { parseChainRpcUrls, resolveConfig } from "../../src/config.js";

describe("CHAIN_RPC_URLS", () => {
  it("maps CAIP-2 ids to one or more URLs, entries separated by ; or whitespace", () => {
    expect(
      parseChainRpcUrls(
        "eip155:1=https://a.example,https://b.example; solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1=http://127.0.0.1:8899\neip155:8453=https://base.example",
      ),
    ).toEqual({
      "eip155:1": ["https://a.example", "https://b.example"],
      "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": ["http://127.0.0.1:8899"],
      "eip155:8453": ["https://base.example"],
    });
    expect(parseChainRpcUrls(undefined)).toEqual({});
  });

  it("refuses an entry that is not <caip2>=<url>, a URL that is not http(s), and chains it cannot send on", () => {
    expect(() => parseChainRpcUrls("https://node.example")).toThrow('CHAIN_RPC_URLS: "https://node.example" is not <caip2>=<url>');
    expect(() => parseChainRpcUrls("eip155:1=ws://node.example")).toThrow("CHAIN_RPC_URLS (eip155:1)");
    expect(() => parseChainRpcUrls("eip155:1=")).toThrow("eip155:1 has no URL");
    expect(() => parseChainRpcUrls("cosmos:cosmoshub-4=https://node.example")).toThrow("only eip155 (EVM) and solana chains");
  });

  it("is read with EVM_RPC_URL and the broadcaster's timings into the configuration", () => {
    const config = resolveConfig(
      { dataDir: "memory://" },
      { CHAIN_RPC_URLS: "eip155:84532=http://127.0.0.1:8545", EVM_RPC_URL: "http://127.0.0.1:9545", CHAIN_REBROADCAST_MS: "5000" },
    );
    expect(config.chains).toEqual({
      rpcUrls: { "eip155:84532": ["http://127.0.0.1:8545"] },
      evmRpcUrl: "http://127.0.0.1:9545",
      timeoutMs: 10_000,
      pollIntervalMs: 1000,
      rebroadcastMs: 5000,
      assets: {},
    });
  });
});

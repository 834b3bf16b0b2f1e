import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Compiler, Configuration, WebpackPluginInstance } from "webpack";
import { PINNED_KEYS_MODULE, resolveKeys, type StrongroomKeys, type StrongroomSignerOptions } from "./pinned-keys.js";

export type { StrongroomSignerOptions } from "./pinned-keys.js";

const PLUGIN_NAME = "StrongroomWebpackPlugin";
const LOADER = fileURLToPath(new URL("./webpack-loader.js", import.meta.url));

/**
 * A webpack 5 plugin that makes the unchanged `@turnkey/*` browser SDKs trust a Strongroom server's keys instead of
 * the hosted service's, by rewriting the public keys pinned in `@turnkey/crypto` (see `strongroom/vite`).
 *
 *     import { StrongroomWebpackPlugin } from "strongroom/webpack";
 *     export default { plugins: [new StrongroomWebpackPlugin({ serverUrl: "https://strongroom.example" })] };
 *
 * The keys are resolved once per plugin instance, before the first compilation; a failure fails that build (and is
 * tried again on the next watch rebuild).
 */
export class StrongroomWebpackPlugin implements WebpackPluginInstance {
  readonly #options: StrongroomSignerOptions;
  #pending: Promise<StrongroomKeys> | undefined;
  #keys: StrongroomKeys | undefined;

  constructor(options: StrongroomSignerOptions) {
    this.#options = options;
  }

  apply(compiler: Compiler): void {
    const resolveOnce = async () => {
      this.#pending ??= resolveKeys(this.#options).catch((error: unknown) => {
        this.#pending = undefined;
        throw explain(error, this.#options);
      });
      this.#keys = await this.#pending;
    };
    compiler.hooks.beforeRun.tapPromise(PLUGIN_NAME, resolveOnce);
    compiler.hooks.watchRun.tapPromise(PLUGIN_NAME, resolveOnce);
    compiler.options.module.rules.push({
      test: PINNED_KEYS_MODULE,
      enforce: "pre",
      use: () => {
        const keys = this.#keys;
        if (!keys)
          throw new Error("strongroom: the keys were not resolved before the compilation (run the compiler with run() or watch())");
        // The ident names the keys, so webpack's persistent cache does not reuse a module rewritten with other keys.
        const digest = createHash("sha256").update(`${keys.signerPublicKey}:${keys.encryptionPublicKey}`).digest("hex").slice(0, 16);
        return [{ loader: LOADER, options: { ...keys }, ident: `strongroom-pinned-keys-${digest}` }];
      },
    });
  }
}

function explain(error: unknown, options: StrongroomSignerOptions): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("strongroom:")) return error instanceof Error ? error : new Error(message);
  // fetch() says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  const url = options.serverUrl ? new URL("/public/v1/discovery/keys", options.serverUrl).href : "the discovery endpoint";
  return new Error(`strongroom: could not read the keys from ${url}: ${message}${cause}`, { cause: error });
}

/** What Next.js passes as the second argument of `webpack(config, context)`; only what is needed here. */
export interface NextWebpackContext {
  isServer: boolean;
  dev: boolean;
  [key: string]: unknown;
}

export type NextWebpackFunction = (config: Configuration, context: NextWebpackContext) => Configuration;

/**
 * Next.js (with webpack: `next build --webpack`, `next dev --webpack`): adds `StrongroomWebpackPlugin` to every
 * compilation (client, server, edge), after any `webpack` function the config already had. One plugin instance
 * serves them all, so the keys are read once.
 *
 *     import { withStrongroom } from "strongroom/webpack";
 *     export default withStrongroom(nextConfig, { serverUrl: "https://strongroom.example" });
 */
export function withStrongroom<T extends object>(nextConfig: T, options: StrongroomSignerOptions): T & { webpack: NextWebpackFunction } {
  const plugin = new StrongroomWebpackPlugin(options);
  const userWebpack = (nextConfig as { webpack?: NextWebpackFunction | null }).webpack;
  return {
    ...nextConfig,
    webpack(config: Configuration, context: NextWebpackContext) {
      const result = userWebpack ? userWebpack(config, context) : config;
      result.plugins = [...(result.plugins ?? []), plugin];
      return result;
    },
  };
}

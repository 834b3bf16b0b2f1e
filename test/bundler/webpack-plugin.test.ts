import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { build } from "esbuild";
import webpack, { type Configuration, type WebpackPluginInstance } from "webpack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as PluginModule from "../../src/bundler/webpack-plugin.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const constantsSource = readFileSync(join(dirname(createRequire(import.meta.url).resolve("@turnkey/crypto")), "constants.mjs"), "utf8");
const PINNED = [
  "PRODUCTION_SIGNER_SIGN_PUBLIC_KEY",
  "PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY",
  "PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY",
  "PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY",
];
/** The value each pinned constant has in a module or bundle (undefined where it is not declared). */
const pinnedIn = (code: string) =>
  Object.fromEntries(PINNED.map((constant) => [constant, new RegExp(`${constant} = "([0-9a-f]+)"`).exec(code)?.[1]]));
const HOSTED_KEYS = Object.values(pinnedIn(constantsSource)) as string[];
/** Which of the hosted keys appear anywhere in a bundle (compared as a list, so a failure does not print the bundle). */
const hostedKeysIn = (bundle: string) => HOSTED_KEYS.filter((hosted) => bundle.includes(hosted));
const strongroomPinned = (keys: { signerPublicKey: string; encryptionPublicKey: string }) => ({
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY: keys.signerPublicKey,
  PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY: keys.signerPublicKey,
  PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY: keys.signerPublicKey,
  PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY: keys.encryptionPublicKey,
});

const newKey = () => bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), false));

describe("the webpack plugin and Next.js helper (strongroom/webpack) on a real webpack build", () => {
  let work: string;
  let plugin: typeof PluginModule;
  let server: TestServer;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "strongroom-webpack-"));
    // webpack loads loaders with Node's own require(), which reads no TypeScript: compile the plugin, its loader and
    // the rewrite to JavaScript side by side, as `npm run build` puts them in dist/bundler/.
    const compiled = join(work, "plugin");
    await build({
      entryPoints: ["pinned-keys", "webpack-plugin", "webpack-loader"].map((name) => join(repo, "src", "bundler", `${name}.ts`)),
      outdir: compiled,
      format: "esm",
      platform: "node",
      logLevel: "error",
    });
    writeFileSync(join(compiled, "package.json"), JSON.stringify({ type: "module" }));
    plugin = (await import(pathToFileURL(join(compiled, "webpack-plugin.js")).href)) as typeof PluginModule;
    writeFileSync(
      join(work, "entry.mjs"),
      `import * as pinned from "@turnkey/crypto";\n` +
        `console.log(pinned.PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, pinned.PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY, ` +
        `pinned.PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY, pinned.PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY);\n`,
    );
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  let builds = 0;
  function config(plugins: WebpackPluginInstance[], entry = join(work, "entry.mjs")): Configuration {
    return {
      mode: "development",
      devtool: false,
      target: "web",
      context: work,
      entry,
      output: { path: join(work, `out-${++builds}`), filename: "main.js" },
      resolve: { modules: ["node_modules", join(repo, "node_modules")] },
      plugins,
      infrastructureLogging: { level: "error" },
      performance: { hints: false },
    };
  }

  /** Runs webpack; resolves with the bundle, or rejects with the error that failed the run or the build's errors. */
  function bundle(configuration: Configuration): Promise<string> {
    const compiler = webpack(configuration);
    return new Promise((resolve, reject) => {
      compiler.run((runError, stats) => {
        compiler.close(() => {
          if (runError) return reject(runError);
          if (stats!.hasErrors())
            return reject(
              new Error(
                stats!
                  .toJson({ all: false, errors: true })
                  .errors!.map((e) => e.message)
                  .join("\n"),
              ),
            );
          resolve(readFileSync(join(configuration.output!.path!, "main.js"), "utf8"));
        });
      });
    });
  }

  it("puts the given keys in place of every pinned hosted key, through withStrongroom on top of the app's own webpack function", async () => {
    const keys = { signerPublicKey: newKey(), encryptionPublicKey: newKey() };
    const appPlugin: WebpackPluginInstance = { apply: () => {} };
    const nextConfig = plugin.withStrongroom(
      {
        reactStrictMode: true,
        webpack: (cfg: Configuration, context: PluginModule.NextWebpackContext) => {
          cfg.plugins = [...(cfg.plugins ?? []), appPlugin];
          cfg.resolve = { ...cfg.resolve, alias: { "app-alias": context.isServer ? "server" : "client" } };
          return cfg;
        },
      },
      keys,
    );
    expect(nextConfig.reactStrictMode).toBe(true);
    const client = nextConfig.webpack(config([]), { isServer: false, dev: false });
    const server_ = nextConfig.webpack(config([]), { isServer: true, dev: false });
    expect(client.resolve!.alias).toEqual({ "app-alias": "client" });
    expect(server_.resolve!.alias).toEqual({ "app-alias": "server" });
    expect(client.plugins![0]).toBe(appPlugin);
    expect(client.plugins![1]).toBeInstanceOf(plugin.StrongroomWebpackPlugin);
    expect(server_.plugins![1]).toBe(client.plugins![1]); // one instance for every compilation: the keys are read once

    const output = await bundle(client);
    expect(pinnedIn(output)).toEqual(strongroomPinned(keys));
    expect(hostedKeysIn(output)).toEqual([]);

    // Without the plugin, the same build carries the hosted keys: the check above is the plugin's doing.
    const plain = await bundle(config([]));
    expect(HOSTED_KEYS).toHaveLength(4);
    expect(hostedKeysIn(plain)).toEqual(HOSTED_KEYS);
    expect(plugin.withStrongroom({}, keys).webpack(config([]), { isServer: false, dev: true }).plugins).toHaveLength(1);
  });

  it("reads the keys from a Strongroom server's discovery endpoint before the compilation", async () => {
    const discovered = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as {
      signerPublicKey: string;
      encryptionPublicKey: string;
    };
    expect(discovered.signerPublicKey).toBe(server.services.signer.publicKeyHex);
    const output = await bundle(config([new plugin.StrongroomWebpackPlugin({ serverUrl: server.url })]));
    expect(pinnedIn(output)).toEqual(strongroomPinned(discovered));
    expect(hostedKeysIn(output)).toEqual([]);
  });

  it("fails the build on a key that is not an uncompressed P-256 point, an unreachable server, or a pinned constant gone missing", async () => {
    await expect(
      bundle(config([new plugin.StrongroomWebpackPlugin({ signerPublicKey: "04zz", encryptionPublicKey: newKey() })])),
    ).rejects.toThrow("strongroom: signerPublicKey must be an uncompressed P-256 public key in hex (130 characters starting with 04)");
    await expect(
      bundle(config([new plugin.StrongroomWebpackPlugin({ signerPublicKey: newKey(), encryptionPublicKey: newKey().slice(0, 66) })])),
    ).rejects.toThrow(/encryptionPublicKey must be an uncompressed P-256 public key/);

    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    await expect(bundle(config([new plugin.StrongroomWebpackPlugin({ serverUrl: `http://127.0.0.1:${closedPort}` })]))).rejects.toThrow(
      new RegExp(
        `strongroom: could not read the keys from http://127\\.0\\.0\\.1:${closedPort}/public/v1/discovery/keys: fetch failed \\(.*ECONNREFUSED`,
      ),
    );

    // A future @turnkey/crypto whose constants module no longer declares one of the pinned keys.
    const future = join(work, "future", "node_modules", "@turnkey", "crypto");
    mkdirSync(join(future, "dist"), { recursive: true });
    writeFileSync(
      join(future, "package.json"),
      JSON.stringify({ name: "@turnkey/crypto", type: "module", exports: "./dist/constants.mjs" }),
    );
    writeFileSync(join(future, "dist", "constants.mjs"), `export const PRODUCTION_SIGNER_SIGN_PUBLIC_KEY = "${HOSTED_KEYS[0]}";\n`);
    writeFileSync(
      join(work, "future", "entry.mjs"),
      `import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY } from "@turnkey/crypto";\nconsole.log(PRODUCTION_SIGNER_SIGN_PUBLIC_KEY);\n`,
    );
    await expect(
      bundle(
        config(
          [new plugin.StrongroomWebpackPlugin({ signerPublicKey: newKey(), encryptionPublicKey: newKey() })],
          join(work, "future", "entry.mjs"),
        ),
      ),
    ).rejects.toThrow("strongroom: PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY not found in @turnkey/crypto's constants module");
  });
});

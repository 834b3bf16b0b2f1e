import type { Plugin } from "vite";
import { PINNED_KEYS_MODULE, resolveKeys, rewritePinnedKeys, type StrongroomKeys, type StrongroomSignerOptions } from "./pinned-keys.js";

export type { StrongroomSignerOptions } from "./pinned-keys.js";

/**
 * A Vite plugin that makes the unchanged `@turnkey/*` browser SDKs trust a Strongroom server's keys instead of the
 * hosted service's: it rewrites the public keys pinned in `@turnkey/crypto` (in the build and in the dev server's
 * dependency pre-bundling).
 *
 *     import { strongroomSigner } from "strongroom/vite";
 *     export default defineConfig({ plugins: [react(), strongroomSigner({ serverUrl: "https://strongroom.example" })] });
 */
export function strongroomSigner(options: StrongroomSignerOptions): Plugin {
  let keys: Promise<StrongroomKeys> | undefined;
  const transform = async (code: string, id: string) => {
    if (!PINNED_KEYS_MODULE.test(id)) return null;
    keys ??= resolveKeys(options);
    return { code: rewritePinnedKeys(code, await keys), map: null };
  };
  return {
    name: "strongroom-signer",
    enforce: "pre",
    config: () => ({
      optimizeDeps: { rolldownOptions: { plugins: [{ name: "strongroom-signer-prebundle", transform }] } },
    }),
    async buildStart() {
      keys ??= resolveKeys(options);
      await keys;
    },
    transform,
  };
}

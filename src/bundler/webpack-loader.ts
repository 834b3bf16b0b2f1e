import type { LoaderDefinitionFunction } from "webpack";
import { rewritePinnedKeys, type StrongroomKeys } from "./pinned-keys.js";

/**
 * The webpack loader that `StrongroomWebpackPlugin` puts on `@turnkey/crypto`'s constants module. The plugin resolves
 * and checks the keys before the compilation starts and passes them as the loader's options.
 */
const pinnedKeysLoader: LoaderDefinitionFunction<StrongroomKeys> = function (code) {
  return rewritePinnedKeys(code, this.getOptions());
};

export default pinnedKeysLoader;

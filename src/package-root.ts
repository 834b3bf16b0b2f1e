import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

interface PackageJson {
  name?: string;
  version?: string;
}

/**
 * Strongroom's package directory and its package.json: the nearest directory above this module whose package.json
 * names Strongroom. Found by walking up rather than by a fixed `../..`, because this module runs from src/ (tsx),
 * from dist/ (the compiled modules) and inlined in dist/cli/strongroom.js (the bundled CLI), each at another depth.
 */
function findPackage(from: string): { root: string; json: PackageJson } {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
      if (json.name === "strongroom") return { root: dir, json };
    } catch {
      // no package.json here, or not ours: keep walking up
    }
    if (dirname(dir) === dir) throw new Error(`Strongroom's package.json was not found above ${from}`);
  }
}

const found = findPackage(dirname(fileURLToPath(import.meta.url)));

export const packageRoot: string = found.root;
export const packageJson: PackageJson = found.json;

/** A path in the build's output (`dist/`): the console, the frames' bundles, the embedded store's template. */
export const builtPath = (...parts: string[]): string => join(packageRoot, "dist", ...parts);

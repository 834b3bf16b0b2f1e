import { packageJson } from "./package-root.js";

/** Strongroom's version, from its package.json. */
export const VERSION: string = packageJson.version ?? "unknown";

import { readFileSync } from "node:fs";

/**
 * Strongroom's version, read from package.json at run time: `../package.json` from this module is the package
 * root both in the sources (src/version.ts) and in the compiled package (dist/version.js).
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version;

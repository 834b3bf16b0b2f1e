import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** ../shared beside the checkout: the upstream API description (spec/) and the reference notes (reference/). */
const SHARED_DIR = resolve(join(import.meta.dirname, "../.."), "../shared");

/**
 * The path of `relative` inside ../shared, or undefined when it is absent. Tests that read it are skipped then,
 * and say why on the output: outside CI a checkout may lack ../shared; .ci/run refuses to start without it.
 */
export function sharedReferenceFile(relative: string, readBy: string): string | undefined {
  const path = join(SHARED_DIR, relative);
  if (existsSync(path)) return path;
  console.warn(`skipped: ${readBy} reads ${path}, which is missing (.ci/run requires ../shared)`);
  return undefined;
}

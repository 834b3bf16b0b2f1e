import { readFileSync } from "node:fs";

/**
 * Key shares from a file: a JSON array of shares, or what `strongroom init` printed (its `keyShares` or
 * `recoveryShares`, by `field`). Give only as many as the threshold needs, kept by as many people.
 */
export function readSharesFile(path: string, field: "keyShares" | "recoveryShares"): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: not a JSON file of key shares (${(error as Error).message})`);
  }
  const shares = Array.isArray(parsed) ? parsed : (parsed as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(shares) || shares.length === 0 || !shares.every((s) => typeof s === "string")) {
    throw new Error(`${path}: expected a JSON array of shares, or an object with "${field}" (what \`strongroom init\` printed)`);
  }
  return shares as string[];
}

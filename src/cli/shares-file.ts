import { readFileSync } from "node:fs";
import type { Custody } from "../crypto/keyring/custody.js";

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

/** The distinct shares in `path`, refused when fewer than `threshold`: the error says how many, never a share. */
export function readQuorumFile(path: string, threshold: number): string[] {
  const shares = [...new Set(readSharesFile(path, "keyShares").map((share) => share.trim()))];
  if (shares.length < threshold) {
    throw new Error(
      `${path} holds ${shares.length} key share${shares.length === 1 ? "" : "s"}: the keyring needs ${threshold} to unseal ` +
        "(the threshold `strongroom init --key-threshold` set)",
    );
  }
  return shares;
}

/** Unseals `custody` (STRONGROOM_SEAL=shamir) with a quorum of the key shares in `path`. */
export async function unsealWithSharesFile(custody: Custody, path: string): Promise<void> {
  for (const share of readQuorumFile(path, custody.status().t)) await custody.submitShare(share);
}

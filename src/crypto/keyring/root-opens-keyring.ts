import type { Queryable } from "../../store/database.js";
import { readKeyRows } from "./keyring-rows.js";
import { localRootWrapper, type RootWrapper } from "./root-wrapper.js";
import { combineShares, parseShare } from "./shares.js";

/**
 * Whether `shares` (Shamir key shares, at least the threshold) combine into the root key that opens every version of
 * the keyring in `db`: what `restore` checks of a backup before it takes the data directory's place. A text that is
 * not a share throws, naming its position (never its text).
 */
export async function sharesOpenKeyring(db: Queryable, shares: string[]): Promise<boolean> {
  const parsed = shares.map((text, i) => {
    try {
      return parseShare(text);
    } catch (error) {
      throw new Error(`key share ${i + 1}: ${(error as Error).message}`);
    }
  });
  let rootKey: Uint8Array;
  try {
    rootKey = await combineShares(parsed);
  } catch {
    return false;
  } finally {
    for (const share of parsed) share.fill(0);
  }
  const wrapper = localRootWrapper(rootKey, "shamir");
  rootKey.fill(0);
  try {
    return await wrapperOpensKeyring(db, wrapper);
  } finally {
    await wrapper.close();
  }
}

/** Whether `wrapper` (a seal provider's root) unwraps every version of the keyring in `db`. */
export async function wrapperOpensKeyring(db: Queryable, wrapper: RootWrapper): Promise<boolean> {
  try {
    for (const row of await readKeyRows(db)) (await wrapper.unwrap(row.wrapped_key, row.version)).fill(0);
    return true;
  } catch {
    return false;
  }
}

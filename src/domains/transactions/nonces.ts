import type { Queryable } from "../../store/database.js";

/**
 * Nonces are allocated in the database, never in a process: the sender's row in evm_nonces is locked for the
 * allocating transaction, so concurrent sends — from any process of a cluster — get consecutive nonces.
 */

/** The next nonce Strongroom would give the sender, as committed now (for `fill`, outside any transaction). */
export async function committedNextNonce(db: Queryable, chain: string, address: string): Promise<bigint> {
  const [row] = await db.query<{ next_nonce: string }>("SELECT next_nonce FROM evm_nonces WHERE chain = $1 AND address = $2", [
    chain,
    address.toLowerCase(),
  ]);
  return row ? BigInt(row.next_nonce) : 0n;
}

/**
 * Allocates a nonce in the caller's transaction: the caller's own when given (it wins; later allocations go past
 * it), else the larger of the stored next nonce and the node's pending count (`chainNonce`, read before the
 * transaction), so transactions the address sent elsewhere are stepped over. The row stays locked until commit.
 */
export async function allocateNonce(
  tx: Queryable,
  chain: string,
  address: string,
  chainNonce: bigint,
  callerNonce: bigint | undefined,
): Promise<bigint> {
  const sender = address.toLowerCase();
  await tx.query("INSERT INTO evm_nonces (chain, address, next_nonce) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING", [chain, sender]);
  const [row] = await tx.query<{ next_nonce: string }>("SELECT next_nonce FROM evm_nonces WHERE chain = $1 AND address = $2 FOR UPDATE", [
    chain,
    sender,
  ]);
  const stored = BigInt(row!.next_nonce);
  const nonce = callerNonce ?? (stored > chainNonce ? stored : chainNonce);
  const next = nonce + 1n > stored ? nonce + 1n : stored;
  await tx.query("UPDATE evm_nonces SET next_nonce = $3 WHERE chain = $1 AND address = $2", [chain, sender, next.toString()]);
  return nonce;
}

/**
 * Gives a nonce back when the transaction holding it failed without being mined and was the last one given:
 * the next send reuses it instead of leaving a gap that would hold every later transaction of the sender.
 */
export async function releaseNonce(tx: Queryable, chain: string, address: string, nonce: bigint): Promise<void> {
  await tx.query("UPDATE evm_nonces SET next_nonce = $3 WHERE chain = $1 AND address = $2 AND next_nonce = $4", [
    chain,
    address.toLowerCase(),
    nonce.toString(),
    (nonce + 1n).toString(),
  ]);
}

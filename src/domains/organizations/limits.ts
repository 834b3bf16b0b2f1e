import type { Queryable } from "../../store/database.js";

/**
 * Serializes, per organization, the activities that count rows against a documented limit
 * (users, wallets, private keys, tags, invitations). Without it two transactions — from two
 * processes of a cluster, say — could each count one free place and both take it.
 * FOR NO KEY UPDATE does not conflict with the KEY SHARE locks that foreign-key inserts take,
 * so other writes in the organization are not held up; only concurrent limit checks wait.
 */
export async function lockOrganizationForLimits(tx: Queryable, organizationId: string): Promise<void> {
  await tx.query("SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE", [organizationId]);
}

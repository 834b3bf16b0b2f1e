import type { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";
import type { Queryable } from "../../store/database.js";
import { VelocityLedger, type VelocitySubject } from "./ledger.js";

/**
 * The wallet an activity acts on, for controls grouped by wallet: the wallet its policy target names, or the
 * wallet of the account it signs with; a private key it signs with is a wallet of its own (its id).
 */
async function walletOf(db: Queryable, organizationId: string, definition: ActivityDefinition, params: Record<string, unknown>) {
  const target = definition.policyTarget;
  if (!target) return undefined;
  if ("wallet" in target) return typeof params[target.wallet] === "string" ? (params[target.wallet] as string) : undefined;
  if (!("signer" in target) || typeof params[target.signer] !== "string") return undefined;
  const signWith = params[target.signer] as string;
  const [found] = await db.query<{ id: string }>(
    `SELECT wallet_id AS id FROM wallet_accounts WHERE organization_id = $1 AND address = $2
     UNION ALL SELECT private_key_id FROM private_key_addresses WHERE organization_id = $1 AND address = $2
     UNION ALL SELECT id FROM private_keys WHERE organization_id = $1 AND id = $2
     LIMIT 1`,
    [organizationId, signWith],
  );
  return found?.id;
}

/** An activity as the velocity controls of `organizationId` (the organization whose policies decide it) see it. */
async function velocitySubject(
  db: Queryable,
  activity: {
    organizationId: string;
    userId: string;
    definition: ActivityDefinition;
    params: Record<string, unknown>;
    parsedTransactions: ParsedTransactions;
  },
): Promise<VelocitySubject> {
  const { organizationId, userId, definition, params, parsedTransactions } = activity;
  const walletId = await walletOf(db, organizationId, definition, params);
  return {
    organizationId,
    userId,
    ...(walletId === undefined ? {} : { walletId }),
    activityType: definition.type,
    transfers: definition.assetTransfers?.(params as never, parsedTransactions) ?? [],
  };
}

/**
 * The velocity ledger of an activity (ledger.ts), at `now`: the activity's execution time. `hasControls`: whether
 * the deciding organization had controls when the request was authenticated, if known.
 */
export function openVelocityLedger(
  db: Queryable,
  activity: Parameters<typeof velocitySubject>[1],
  now: Date,
  hasControls?: boolean,
): Promise<VelocityLedger> {
  return VelocityLedger.open(db, activity.organizationId, () => velocitySubject(db, activity), now, hasControls);
}

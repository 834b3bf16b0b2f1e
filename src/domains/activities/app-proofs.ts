import { createHash } from "node:crypto";
import { signAppProof, type AppProof } from "../../crypto/app-proof-signature.js";
import type { PolicyOutcome } from "../../policy/decision.js";
import { rootQuorum, requireOrganization, type OrganizationRow } from "../../records/organization.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";

const sha256Hex = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");

/** What the policy decision rested on for an organization: its root quorum and its policies. */
async function organizationDataDigest(tx: Queryable, organization: OrganizationRow): Promise<string> {
  const quorum = await rootQuorum(tx, organization);
  const policies = await tx.query("SELECT id, effect, condition, consensus, time FROM policies WHERE organization_id = $1 ORDER BY seq", [
    organization.id,
  ]);
  return sha256Hex({ organizationId: organization.id, rootQuorum: quorum, policies });
}

export interface ProofContext {
  fingerprint: string;
  evaluations: PolicyOutcome[];
  /** The approving votes that carried the decision. */
  approvals: { publicKey: string; scheme: string; signature: string }[];
}

/** Accounts derived by this activity: the result's walletId and addresses, paired with the requested paths. */
function derivedAccounts(
  params: Record<string, unknown>,
  result: Record<string, unknown>,
): { walletId: string; path: string; address: string }[] {
  const found: { walletId: string; path: string; address: string }[] = [];
  for (const value of Object.values(result)) {
    const holder = (value ?? {}) as Record<string, unknown>;
    const wallet = (typeof holder.walletId === "string" ? holder : holder.wallet) as
      { walletId?: string; addresses?: string[] } | undefined;
    const accounts = (params.accounts ?? (params.wallet as { accounts?: unknown } | undefined)?.accounts) as { path: string }[] | undefined;
    const walletId = wallet?.walletId ?? (params.walletId as string | undefined);
    const addresses = wallet?.addresses ?? (holder.addresses as string[] | undefined);
    if (!walletId || !Array.isArray(addresses) || !Array.isArray(accounts)) continue;
    addresses.forEach((address, i) => found.push({ walletId, path: accounts[i]?.path ?? "", address }));
  }
  return found;
}

/**
 * App proofs for an executed activity: the policy outcome, and one address-derivation proof per account
 * it derived. They are signed by the server's signer key; there is no hardware attestation behind them
 * (no boot proof), so only their signatures can be verified.
 */
export async function appProofsFor(
  tx: Queryable,
  services: Services,
  activity: { organization: OrganizationRow; type: string; params: Record<string, unknown>; result: Record<string, unknown> },
  context: ProofContext,
  now: Date,
): Promise<AppProof[]> {
  const keys = { signer: services.signer, encryptionKey: services.encryptionKey };
  const timestampMs = String(now.getTime());
  const { organization } = activity;
  const parent = organization.parent_id ? await requireOrganization(tx, organization.parent_id) : undefined;
  const proofs = [
    signAppProof(
      {
        type: "APP_PROOF_TYPE_POLICY_OUTCOME",
        timestampMs,
        policyOutcomeProof: {
          organizationId: organization.id,
          outcome: "OUTCOME_ALLOW",
          decisionContextDigest: sha256Hex({ type: activity.type, fingerprint: context.fingerprint, evaluations: context.evaluations }),
          organizationDataDigest: await organizationDataDigest(tx, organization),
          parentOrganizationDataDigest: parent ? await organizationDataDigest(tx, parent) : "",
          userRequestApprovals: JSON.stringify(context.approvals),
        },
      },
      keys,
    ),
  ];
  const subOrganizationId = Object.values(activity.result)
    .map((r) => (r as { subOrganizationId?: string })?.subOrganizationId)
    .find(Boolean);
  for (const account of derivedAccounts(activity.params, activity.result)) {
    proofs.push(
      signAppProof(
        {
          type: "APP_PROOF_TYPE_ADDRESS_DERIVATION",
          timestampMs,
          addressDerivationProof: {
            organizationId: subOrganizationId ?? organization.id,
            walletId: account.walletId,
            derivationPath: account.path,
            address: account.address,
          },
        },
        keys,
      ),
    );
  }
  return proofs;
}

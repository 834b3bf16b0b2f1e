import { unauthenticated } from "../errors.js";
import type { OrganizationRow } from "../records/organization.js";
import type { AuthenticatorRow } from "../records/authenticator.js";
import type { Queryable } from "../store/database.js";

/** How many holders of one public key or credential id are read: enough to tell one from several. */
const CANDIDATES = 3;

type Holder<Row> = Row & { proven: boolean };

/**
 * The holders of a credential among the sub-organizations of `parentId`, proven ones first. The CTE is
 * MATERIALIZED so that it is read by the credential's own index (api_keys_public_key,
 * authenticators_credential): the cost is that of the rows holding this credential, never a walk over
 * the parent's sub-organizations.
 */
async function holdersInSubOrganizations<Row>(
  db: Queryable,
  table: "api_keys" | "authenticators",
  column: "public_key" | "credential_id",
  value: string,
  parentId: string,
): Promise<Array<Holder<Row>>> {
  return db.query<Holder<Row>>(
    `WITH holders AS MATERIALIZED (SELECT * FROM ${table} WHERE ${column} = $1)
     SELECT h.*, u.name AS user_name, u.is_root, h.proven_at IS NOT NULL AS proven
       FROM holders h JOIN organizations o ON o.id = h.organization_id JOIN users u ON u.id = h.user_id
      WHERE o.parent_id = $2
      ORDER BY h.proven_at IS NULL, h.created_at, h.id
      LIMIT ${CANDIDATES}`,
    [value, parentId],
  );
}

const conflict = (what: string, organization: OrganizationRow) =>
  unauthenticated(
    `more than one sub-organization of organization ${organization.id} holds ${what}; name the sub-organization in the request`,
    "CREDENTIAL_CONFLICT",
  );

/**
 * The one holder a credential resolves to. A proven holder (one of its stamps was accepted before) wins over
 * unproven ones, since anyone may register someone else's public key in a sub-organization of their own
 * and must not capture or block its owner's logins by it; two proven holders, or two unproven ones and
 * no proven one, are a conflict the request must settle by naming the sub-organization.
 */
function theHolder<Row>(holders: Array<Holder<Row>>, what: string, named: OrganizationRow): Holder<Row> | undefined {
  const [first, second] = holders;
  if (!first) return undefined;
  if (second && (second.proven || !first.proven)) throw conflict(what, named);
  return first;
}

export type ApiKeyHolder = Holder<{
  id: string;
  organization_id: string;
  user_id: string;
  curve: string;
  credential_type: string;
  public_key: string;
  expires_at: Date | null;
  created_at: Date;
  user_name: string;
  is_root: boolean;
}>;

/** The API key with this public key in a sub-organization of `named`, if exactly one resolves (see theHolder). */
export async function apiKeyInSubOrganization(db: Queryable, publicKey: string, named: OrganizationRow): Promise<ApiKeyHolder | undefined> {
  const holders = await holdersInSubOrganizations<Omit<ApiKeyHolder, "proven">>(db, "api_keys", "public_key", publicKey, named.id);
  return theHolder(holders, `public key ${publicKey}`, named);
}

export type AuthenticatorHolder = Holder<AuthenticatorRow & { user_name: string; is_root: boolean }>;

/**
 * The passkeys with this credential id in sub-organizations of `named` whose public key verifies the
 * assertion (`verifies`): a credential id is public, and anyone may register a passkey under another's id
 * with a key of their own — only the holder of the signing key is the signer.
 */
export async function authenticatorInSubOrganization(
  db: Queryable,
  credentialId: string,
  named: OrganizationRow,
  verifies: (holder: AuthenticatorHolder) => Promise<boolean>,
): Promise<AuthenticatorHolder | undefined> {
  const holders = await holdersInSubOrganizations<Omit<AuthenticatorHolder, "proven">>(
    db,
    "authenticators",
    "credential_id",
    credentialId,
    named.id,
  );
  if (holders.length === 0) return undefined;
  const signers: AuthenticatorHolder[] = [];
  for (const holder of holders) if (await verifies(holder)) signers.push(holder);
  if (signers.length === 0) {
    throw unauthenticated(
      `could not verify WebAuthn signature: no passkey with credential ID ${credentialId} in a sub-organization of organization ${named.id} made it`,
      "SIGNATURE_INVALID",
    );
  }
  return theHolder(signers, `credential ID ${credentialId}`, named);
}

import { Type } from "@sinclair/typebox";
import type { Curve } from "../../crypto/hd/derive.js";
import { SigningInputError, type SigningKey } from "../../crypto/signing/raw-payload.js";
import { generatePrivateKey } from "../../crypto/keys.js";
import { invalidArgument, notFound } from "../../errors.js";
import { mustExist } from "../references.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import type { ReadAhead, Statement } from "../../store/read-alongside.js";

export type ResolvedKey = SigningKey & { publicKey: Uint8Array };

/**
 * `signWith` names a private key id, a wallet account address or a private key address (tried in
 * that order, within the organization); the key is opened from its sealed form only here. `found` is the row
 * `validate` read at submission (see checkSigningInput): signing then follows at once, so it is not read again,
 * and a key deleted meanwhile signs this one request as if it had arrived first. A deciding approval, which
 * runs long after, reads it in its transaction.
 */
export async function resolveSigningKey(
  tx: Queryable,
  services: Services,
  organizationId: string,
  signWith: string,
  found?: unknown,
  field = "signWith",
): Promise<ResolvedKey> {
  const match = found instanceof FoundSigningKey ? found.row : await findSigningKey(tx, organizationId, signWith, field);
  return opened(services, match, match.context, match.format ?? undefined);
}

interface SigningKeyRow {
  context: string;
  curve: string;
  public_key: string;
  sealed_private_key: string;
  format: string | null;
}

/** The row checkSigningInput answers, told apart from anything else a `validate` may have answered. */
class FoundSigningKey {
  constructor(readonly row: SigningKeyRow) {}
}

/**
 * `readAhead` for the activities that sign with `signWith` (ActivityDefinition.readAhead): the key, read with the
 * authentication; nothing for parameters without a string `signWith`, which the schema refuses.
 */
export function readAheadSigningKey(organizationId: string, parameters: unknown): Statement | undefined {
  const signWith = (parameters as { signWith?: unknown } | null)?.signWith;
  return typeof signWith === "string" ? { sql: FIND_SIGNING_KEY, params: [organizationId, signWith] } : undefined;
}

async function findSigningKey(
  db: Queryable,
  organizationId: string,
  signWith: string,
  field: string,
  readAhead?: ReadAhead,
): Promise<SigningKeyRow> {
  const params = [organizationId, signWith];
  const readWithAuthentication =
    readAhead?.statement.sql === FIND_SIGNING_KEY && readAhead.statement.params.every((value, i) => value === params[i]);
  const [match] = readWithAuthentication
    ? (readAhead.rows as unknown as SigningKeyRow[])
    : await db.query<SigningKeyRow>(FIND_SIGNING_KEY, params);
  if (!match) {
    throw notFound(
      `${field}: ${JSON.stringify(signWith)} is neither a private key id, a wallet account address nor a private key address in organization ${organizationId}`,
      "SIGN_WITH_NOT_FOUND",
    );
  }
  return match;
}

const FIND_SIGNING_KEY = `SELECT 'private-key:' || id AS context, curve, public_key, sealed_private_key, NULL AS format, 0 AS rank, seq
       FROM private_keys WHERE organization_id = $1 AND id = $2
     UNION ALL
     SELECT 'wallet-account:' || id, curve, public_key, sealed_private_key, address_format, 1, seq
       FROM wallet_accounts WHERE organization_id = $1 AND address = $2
     UNION ALL
     SELECT 'private-key:' || k.id, k.curve, k.public_key, k.sealed_private_key, a.format, 2, k.seq
       FROM private_key_addresses a JOIN private_keys k ON k.id = a.private_key_id WHERE a.organization_id = $1 AND a.address = $2
     ORDER BY rank, seq LIMIT 1`;

/** The key signWith names as `validate` sees it: never its private key. */
export type DescribedKey = Omit<ResolvedKey, "privateKey">;

/**
 * For `validate`: runs `check` on the key signWith names, described by its curve, public key and address
 * format only, so the input is checked (signWith, encoding, payload, hash function, transaction) at
 * submission without the real key being opened before the decision — parsed and hashed, not signed.
 * Refusals are 400s naming the field. Answers the row found, which `execute` passes back to resolveSigningKey.
 */
export async function checkSigningInput(
  db: Queryable,
  organizationId: string,
  signWith: string,
  check: (key: DescribedKey) => unknown,
  /** What `readAheadSigningKey` read with the authentication (ValidationContext.readAhead): used if it is this key's read. */
  readAhead?: ReadAhead,
): Promise<FoundSigningKey> {
  const row = await mustExist(findSigningKey(db, organizationId, signWith, "signWith", readAhead));
  const key: DescribedKey = {
    curve: row.curve as Curve,
    publicKey: new Uint8Array(Buffer.from(row.public_key, "hex")),
    ...(row.format ? { addressFormat: row.format } : {}),
  };
  signingInput(() => check(key));
  return new FoundSigningKey(row);
}

/** A throwaway private key of the described key's curve, for checks that can only be made by signing. */
export function withThrowawayKey(key: DescribedKey): ResolvedKey {
  return { ...key, privateKey: generatePrivateKey(key.curve) };
}

function opened(
  services: Services,
  row: { curve: string; public_key: string; sealed_private_key: string },
  context: string,
  addressFormat?: string,
): ResolvedKey {
  return {
    curve: row.curve as Curve,
    privateKey: services.kek.open(row.sealed_private_key, context),
    publicKey: new Uint8Array(Buffer.from(row.public_key, "hex")),
    ...(addressFormat ? { addressFormat } : {}),
  };
}

/** Runs a signing function, turning input it refuses into a 400 naming the field. */
export function signingInput<T>(sign: () => T): T {
  try {
    return sign();
  } catch (error) {
    if (error instanceof SigningInputError) {
      const field = /^([A-Za-z.[\]0-9]+):/.exec(error.message)?.[1] ?? "parameters";
      throw invalidArgument(error.message, [{ field, description: error.message }]);
    }
    throw error;
  }
}

/** One signature as sign_raw_payload(s) answer it: hex r and s, and the recovery id v. */
export const RawSignatureResult = Type.Object({ r: Type.String(), s: Type.String(), v: Type.String() });

/**
 * For `validate` of activities that name their signer by address (`from`): the key's curve and address format,
 * without opening it; a 404 naming the field when the organization has no such account or key address.
 */
export async function describeSigningKey(
  db: Queryable,
  organizationId: string,
  address: string,
  field: string,
): Promise<{ curve: Curve; addressFormat?: string }> {
  const row = await mustExist(findSigningKey(db, organizationId, address, field));
  return { curve: row.curve as Curve, ...(row.format ? { addressFormat: row.format } : {}) };
}

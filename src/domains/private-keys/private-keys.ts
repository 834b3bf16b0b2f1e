import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { AddressFormatError, curvesForAddressFormat, deriveAddress, type AddressFormat } from "../../crypto/addresses/index.js";
import type { Curve } from "../../crypto/hd/derive.js";
import { publicKeyOf } from "../../crypto/keys.js";
import { alreadyExists, invalidArgument, notFound, resourceExhausted } from "../../errors.js";
import type { Services } from "../../services.js";
import { Id, Name } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";
import { AddressFormatParam, CurveParam } from "../wallets/wallets.js";
import { lockOrganizationForLimits } from "../../records/organization.js";

export const PrivateKeyParams = Type.Object({
  privateKeyName: Name("Human-readable name for a Private Key"),
  curve: CurveParam,
  privateKeyTags: Type.Array(Id(), { maxItems: 100 }),
  addressFormats: Type.Array(AddressFormatParam, { maxItems: 50 }),
});

/** Documented: 1,000 private keys per organization. */
export const PRIVATE_KEYS_PER_ORGANIZATION = 1000;

export interface NewPrivateKey {
  organizationId: string;
  name: string;
  curve: Curve;
  privateKey: Uint8Array;
  addressFormats: AddressFormat[];
  tagIds: string[];
  imported: boolean;
  now: Date;
  /** The public key and addresses when computed beforehand (`prepare`); otherwise computed here. */
  derived?: DerivedPrivateKey;
}

export interface DerivedPrivateKey {
  publicKey: Uint8Array;
  addresses: { format: string; address: string }[];
}

/** A private key's public key and addresses: CPU work, done before the activity's transaction where it can be. */
export function derivePrivateKey(curve: Curve, privateKey: Uint8Array, formats: AddressFormat[], field: string): DerivedPrivateKey {
  const publicKey = publicKeyOf(curve, privateKey);
  return { publicKey, addresses: privateKeyAddresses(curve, publicKey, formats, field) };
}

/** The key's address in each format; a format the curve cannot have is a 400 naming the field. */
export function privateKeyAddresses(
  curve: Curve,
  publicKey: Uint8Array,
  formats: AddressFormat[],
  field: string,
): { format: string; address: string }[] {
  return formats.map((format, index) => {
    try {
      return { format, address: deriveAddress(format, curve, publicKey) };
    } catch (error) {
      if (error instanceof AddressFormatError) {
        throw invalidArgument(`${field}[${index}]: ${error.message}`, [{ field: `${field}[${index}]`, description: error.message }]);
      }
      throw error;
    }
  });
}

/** For `validate`: every address format can be derived from the key's curve, else a 400 naming the field. */
export function checkAddressFormats(curve: Curve, formats: AddressFormat[], field: string): void {
  for (const [index, format] of formats.entries()) {
    const curves = curvesForAddressFormat(format);
    if (curves.includes(curve)) continue;
    const why = `${format} needs curve ${curves.join(" or ")}, not ${curve}`;
    throw invalidArgument(`${field}[${index}]: ${why}`, [{ field: `${field}[${index}]`, description: why }]);
  }
}

/** Stores a private key (sealed), its addresses and tags; returns its id and addresses. */
export async function insertPrivateKey(
  tx: Queryable,
  services: Services,
  key: NewPrivateKey,
  fields: { name: string; addressFormats: string; tags: string },
): Promise<{ privateKeyId: string; addresses: { format: string; address: string }[] }> {
  await lockOrganizationForLimits(tx, key.organizationId);
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM private_keys WHERE organization_id = $1",
    [key.organizationId],
  );
  if (count >= PRIVATE_KEYS_PER_ORGANIZATION) {
    throw resourceExhausted(
      `organization ${key.organizationId} already has the maximum of ${PRIVATE_KEYS_PER_ORGANIZATION} private keys`,
      "REQUEST_INVALID",
    );
  }
  const [taken] = await tx.query<{ id: string }>("SELECT id FROM private_keys WHERE organization_id = $1 AND name = $2", [
    key.organizationId,
    key.name,
  ]);
  if (taken)
    throw alreadyExists(
      `${fields.name}: a private key named ${JSON.stringify(key.name)} already exists in organization ${key.organizationId} (private key ${taken.id})`,
    );

  const { publicKey, addresses } = key.derived ?? derivePrivateKey(key.curve, key.privateKey, key.addressFormats, fields.addressFormats);
  const privateKeyId = randomUUID();
  await tx.query(
    `INSERT INTO private_keys (id, organization_id, name, curve, public_key, sealed_private_key, imported, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [
      privateKeyId,
      key.organizationId,
      key.name,
      key.curve,
      Buffer.from(publicKey).toString("hex"),
      services.kek.seal(key.privateKey, `private-key:${privateKeyId}`),
      key.imported,
      key.now,
    ],
  );
  await tx.query(
    `INSERT INTO private_key_addresses (private_key_id, organization_id, position, format, address)
     SELECT $1::text, $2::text, a.position - 1, a.format, a.address FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS a(format, address, position)`,
    [privateKeyId, key.organizationId, addresses.map((a) => a.format), addresses.map((a) => a.address)],
  );
  for (const [index, tagId] of key.tagIds.entries()) {
    await requirePrivateKeyTag(tx, key.organizationId, tagId, `${fields.tags}[${index}]`);
    await tx.query("INSERT INTO private_key_tag_assignments (tag_id, private_key_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
      tagId,
      privateKeyId,
    ]);
  }
  return { privateKeyId, addresses };
}

export async function requirePrivateKeyTag(tx: Queryable, organizationId: string, tagId: string, field: string): Promise<void> {
  const [tag] = await tx.query("SELECT id FROM private_key_tags WHERE id = $1 AND organization_id = $2", [tagId, organizationId]);
  if (!tag) throw notFound(`${field}: no private key tag ${JSON.stringify(tagId)} in organization ${organizationId}`);
}

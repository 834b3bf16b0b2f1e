import { Type, type Static } from "@sinclair/typebox";
import { invalidField, notFound } from "../../errors.js";
import { StringEnum } from "../../schema/common.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";

/** The one transport suite the API defines: HPKE bundles to P-256 keys, as wallet imports and exports use. */
export const EncryptionSuite = StringEnum(["TRANSPORT_ENCRYPTION_SUITE_ENCLAVE_ENCRYPT_V1"]);

export const KeyValue = Type.Object({ key: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ maxLength: 4096 }) });
export const StaticProperties = Type.Array(KeyValue, { maxItems: 64 });
export type StaticPropertiesInput = Static<typeof StaticProperties>;

/** Longest secret accepted, in bytes of plaintext: passwords, API keys, certificates, small key files. */
export const SECRET_MAX_BYTES = 64 * 1024;

/** The sealing context of a secret's value: it cannot be moved to another row. */
export const secretContext = (secretId: string) => `secret:${secretId}`;

export interface SecretRow {
  id: string;
  organization_id: string;
  name: string | null;
  sealed_value: string;
  static_properties: StaticPropertiesInput;
  created_at: Date;
}

export const SecretMetadata = Type.Object({
  secretId: Type.String(),
  name: Type.Optional(Type.String()),
  staticProperties: StaticProperties,
  createdAtUnixMs: Type.String(),
});

/** What the API shows of a secret: never its value. */
export function secretMetadata(row: SecretRow): Static<typeof SecretMetadata> {
  return {
    secretId: row.id,
    ...(row.name === null ? {} : { name: row.name }),
    staticProperties: row.static_properties,
    createdAtUnixMs: String(row.created_at.getTime()),
  };
}

/** Static properties are a map: each key once. */
export function checkStaticProperties(properties: StaticPropertiesInput | undefined, field: string): void {
  const seen = new Set<string>();
  for (const [index, { key }] of (properties ?? []).entries()) {
    if (seen.has(key)) throw invalidField(`${field}[${index}].key`, `${JSON.stringify(key)} appears more than once`);
    seen.add(key);
  }
}

/** The policy language's view of static properties: secret.static_properties['kind']. */
export const staticPropertiesMap = (properties: StaticPropertiesInput | undefined): Record<string, string> =>
  Object.fromEntries((properties ?? []).map(({ key, value }) => [key, value]));

export async function requireSecret(db: Queryable, organizationId: string, secretId: string, field: string): Promise<SecretRow> {
  const [row] = await db.query<SecretRow>("SELECT * FROM secrets WHERE id = $1 AND organization_id = $2", [secretId, organizationId]);
  if (!row) throw notFound(`${field}: no secret ${JSON.stringify(secretId)} in organization ${organizationId}`);
  return row;
}

export function openSecret(services: Services, row: SecretRow): Uint8Array {
  return services.kek.open(row.sealed_value, secretContext(row.id));
}

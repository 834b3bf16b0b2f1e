import { Type, type TLiteral, type TSchema, type TUnion } from "@sinclair/typebox";

/** A string enum as the API spells it (a union of literals, which TypeBox compiles and documents). */
export function StringEnum<const T extends readonly string[]>(values: T, description?: string): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  ) as never;
}

/** Identifiers and names: non-empty, bounded. */
export const Id = (description?: string) => Type.String({ minLength: 1, maxLength: 256, ...(description ? { description } : {}) });
export const Name = (description?: string) => Type.String({ minLength: 1, maxLength: 256, ...(description ? { description } : {}) });

/** int64/uint64 fields travel as decimal strings (grpc-gateway JSON). */
export const Int64String = (description?: string) => Type.String({ pattern: "^[0-9]{1,19}$", ...(description ? { description } : {}) });

/** A field the API answers with null when unset. */
export const Nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);

/** A list of identifiers, as most results answer. */
export const IdList = () => Type.Array(Type.String());

export const Optional = <S extends TSchema>(schema: S) => Type.Optional(schema);

export const API_KEY_CURVES = ["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"] as const;
export const ApiKeyCurve = StringEnum(API_KEY_CURVES);

export const AUTHENTICATOR_TRANSPORTS = [
  "AUTHENTICATOR_TRANSPORT_BLE",
  "AUTHENTICATOR_TRANSPORT_INTERNAL",
  "AUTHENTICATOR_TRANSPORT_NFC",
  "AUTHENTICATOR_TRANSPORT_USB",
  "AUTHENTICATOR_TRANSPORT_HYBRID",
] as const;

export const ACCESS_TYPES = ["ACCESS_TYPE_WEB", "ACCESS_TYPE_API", "ACCESS_TYPE_ALL"] as const;

export const ACTIVITY_STATUSES = [
  "ACTIVITY_STATUS_CREATED",
  "ACTIVITY_STATUS_PENDING",
  "ACTIVITY_STATUS_COMPLETED",
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED",
] as const;

export const Pagination = Type.Object({
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$", description: "between 1 and 100; default 10" })),
  before: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
});

import { Type, type Static } from "@sinclair/typebox";
import { failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import type { OrganizationRow } from "../../records/organization.js";
import { StringEnum } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";

/** Every feature name of the API; the request schema accepts these. */
export const FeatureName = StringEnum([
  "FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY",
  "FEATURE_NAME_WEBAUTHN_ORIGINS",
  "FEATURE_NAME_EMAIL_AUTH",
  "FEATURE_NAME_EMAIL_RECOVERY",
  "FEATURE_NAME_WEBHOOK",
  "FEATURE_NAME_SMS_AUTH",
  "FEATURE_NAME_OTP_EMAIL_AUTH",
  "FEATURE_NAME_AUTH_PROXY",
  "FEATURE_NAME_SOLANA_RENT_PREFUND_ENABLED",
  "FEATURE_NAME_SWAP_CONFIG",
  "FEATURE_NAME_EARN_CONFIG",
] as const);

/**
 * The features Strongroom acts on: authentication methods, on unless set to "false". The others configure
 * parts of the hosted service Strongroom does not have, so setting them is refused rather than silently kept.
 */
export const AUTHENTICATION_FEATURES = [
  "FEATURE_NAME_EMAIL_AUTH",
  "FEATURE_NAME_EMAIL_RECOVERY",
  "FEATURE_NAME_SMS_AUTH",
  "FEATURE_NAME_OTP_EMAIL_AUTH",
];

export const Feature = Type.Object({ name: Type.String(), value: Type.String() });
export type Feature = Static<typeof Feature>;

export function checkFeature(name: string, value: string | undefined): void {
  if (!AUTHENTICATION_FEATURES.includes(name)) {
    const why = `${name} configures a part of the hosted service that Strongroom does not have; it supports ${AUTHENTICATION_FEATURES.join(", ")}`;
    throw invalidArgument(`name: ${why}`, [{ field: "name", description: why }]);
  }
  if (value !== undefined && value !== "true" && value !== "false") {
    const why = `${name} is "true" (enabled) or "false" (disabled), not ${JSON.stringify(value)}`;
    throw invalidArgument(`value: ${why}`, [{ field: "value", description: why }]);
  }
}

/** Sets or (value undefined) removes one feature of the organization, keeping the others in order; returns the new list. */
export async function writeFeature(
  tx: Queryable,
  organizationId: string,
  name: string,
  value: string | undefined,
  now: Date,
): Promise<Feature[]> {
  const [row] = await tx.query<{ features: Feature[] }>("SELECT features FROM organizations WHERE id = $1 FOR UPDATE", [organizationId]);
  const current = row?.features ?? [];
  if (value === undefined && !current.some((f) => f.name === name))
    throw notFound(`name: ${name} is not set in organization ${organizationId}`);
  const features =
    value === undefined
      ? current.filter((f) => f.name !== name)
      : current.some((f) => f.name === name)
        ? current.map((f) => (f.name === name ? { name, value } : f))
        : [...current, { name, value }];
  await tx.query("UPDATE organizations SET features = $2::jsonb, updated_at = $3 WHERE id = $1", [
    organizationId,
    JSON.stringify(features),
    now,
  ]);
  return features;
}

/** An authentication feature set to "false" (at creation by a disable… flag, or by set_organization_feature) is off. */
export function requireFeature(organization: OrganizationRow, feature: string, flag: string): void {
  const entry = (organization.features ?? []).find((f) => f.name === feature);
  if (entry && entry.value === "false") {
    throw failedPrecondition(
      `${feature} is disabled in organization ${organization.id} (set to "false" by ${flag}: true at creation or by set_organization_feature)`,
      "FEATURE_DISABLED",
    );
  }
}

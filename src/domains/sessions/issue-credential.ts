import { p256 } from "@noble/curves/nist.js";
import { credentialBundle } from "../../crypto/bundles.js";
import type { ActivityContext } from "../../operations/activity-definition.js";
import { addApiKeys } from "../credentials/credentials.js";
import { inheritedProfile, invalidateSessionKeys, sessionSeconds } from "./sessions.js";
import { requireTargetKey } from "../../crypto/target-key.js";

/**
 * Read-write sessions and the legacy authentication flows (otp_auth, email_auth, email recovery, oauth): a fresh P-256 key registered as an
 * expiring API key of the user, whose private half leaves only as a credential bundle to the client's
 * `targetPublicKey` (what decryptCredentialBundle opens). Asked for by a credential issued under a session
 * profile, the key carries that profile, and lives no longer than the profile allows.
 */
export async function issueCredential(
  ctx: Pick<ActivityContext, "tx" | "organization" | "now" | "requesterSessionProfileId">,
  request: {
    userId: string;
    targetPublicKey: string;
    credentialType: string;
    apiKeyName: string;
    expirationSeconds?: string;
    invalidateExisting?: boolean;
  },
): Promise<{ apiKeyId: string; credentialBundle: string; seconds: number }> {
  const { tx, organization, now } = ctx;
  const target = requireTargetKey(request.targetPublicKey);
  const profile = await inheritedProfile(tx, organization, ctx.requesterSessionProfileId);
  const requested = sessionSeconds(request.expirationSeconds);
  const seconds = profile?.expiration_seconds ? Math.min(requested, Number(profile.expiration_seconds)) : requested;
  if (request.invalidateExisting) await invalidateSessionKeys(tx, request.userId, [request.credentialType]);
  const privateKey = p256.utils.randomSecretKey();
  const [apiKeyId] = await addApiKeys(
    tx,
    { organizationId: organization.id, userId: request.userId, now, sessionProfileId: profile?.id },
    [
      {
        apiKeyName: request.apiKeyName,
        publicKey: Buffer.from(p256.getPublicKey(privateKey, true)).toString("hex"),
        curveType: "API_KEY_CURVE_P256",
        expirationSeconds: String(seconds),
        credentialType: request.credentialType,
      },
    ],
    "targetPublicKey",
  );
  return { apiKeyId: apiKeyId!, credentialBundle: await credentialBundle(privateKey, target), seconds };
}

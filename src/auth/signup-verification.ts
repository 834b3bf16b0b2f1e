import { decodeJwt } from "jose";
import type { ServerKey } from "../crypto/server-keys.js";
import { invalidField } from "../errors.js";
import { verifyClientSignature, type ClientSignature } from "./client-signature.js";
import { verifyVerificationToken, type VerificationClaims } from "./verification-token.js";

/** A root user as create_sub_organization receives it: what a signup's client signature covers. */
export interface SignupUser {
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys: unknown[];
  authenticators: unknown[];
  oauthProviders: unknown[];
}

/** JSON with object keys sorted, so two encodings of the same value compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * A signup (create_sub_organization) that carries a verification token: the token must be this server's,
 * unexpired, issued to this organization, and for the email or phone number of one of the root users — "the
 * root user associated with the verification token". It names the key that verified the code (verify_otp always
 * binds one), and a client signature by that key (usage USAGE_TYPE_SIGNUP) must cover exactly that user's email
 * or phone number, API keys, authenticators and OAuth providers. The signup spends it (once, as a signup).
 */
export async function verifySignupToken(
  signer: ServerKey,
  request: { verificationToken?: string; clientSignature?: unknown; organizationId: string; rootUsers: SignupUser[]; now: Date },
): Promise<VerificationClaims | undefined> {
  const { verificationToken, clientSignature } = request;
  if (!verificationToken) {
    if (clientSignature !== undefined)
      throw invalidField("clientSignature", "a client signature only accompanies a verificationToken, and none was given");
    return undefined;
  }
  let contact: unknown;
  try {
    contact = decodeJwt(verificationToken).contact;
  } catch {
    throw invalidField("verificationToken", "invalid verification token: not a JWT");
  }
  const matches = (user: SignupUser) =>
    typeof contact === "string" && (user.userEmail?.toLowerCase() === contact.toLowerCase() || user.userPhoneNumber === contact);
  const user = request.rootUsers.find(matches);
  if (!user)
    throw invalidField(
      "verificationToken",
      "invalid verification token: it was issued for a contact that is not the email or phone number of any root user",
    );
  const claims = await verifyVerificationToken(signer, verificationToken, {
    contact: String(contact),
    now: request.now,
    field: "verificationToken",
  });
  if (claims.organization_id !== request.organizationId) {
    throw invalidField(
      "verificationToken",
      `invalid verification token: it was issued to organization ${String(claims.organization_id)}, not ${request.organizationId}`,
    );
  }
  if (!claims.public_key)
    throw invalidField(
      "verificationToken",
      "invalid verification token: it names no public_key, so no client signature can be checked against it",
    );
  if (!clientSignature || typeof clientSignature !== "object") {
    throw invalidField(
      "clientSignature",
      `required: the verification token is bound to public key ${claims.public_key}, which must sign the signup (USAGE_TYPE_SIGNUP)`,
    );
  }
  const message = verifyClientSignature(clientSignature as ClientSignature, {
    publicKey: claims.public_key,
    tokenId: claims.id,
    usage: "USAGE_TYPE_SIGNUP",
    field: "clientSignature",
  });
  const signed = (message.signupV2 ?? {}) as Record<string, unknown>;
  const covered: Array<[string, unknown, unknown]> = [
    ["apiKeys", signed.apiKeys ?? [], user.apiKeys],
    ["authenticators", signed.authenticators ?? [], user.authenticators],
    ["oauthProviders", signed.oauthProviders ?? [], user.oauthProviders],
    ["email", signed.email ?? user.userEmail, user.userEmail],
    ["phoneNumber", signed.phoneNumber ?? user.userPhoneNumber, user.userPhoneNumber],
  ];
  for (const [name, signedValue, actual] of covered) {
    if (canonical(signedValue) !== canonical(actual)) {
      throw invalidField(
        "clientSignature",
        `the signed message's signupV2.${name} does not match the root user's ${name}: the signature does not cover this signup`,
      );
    }
  }
  return claims;
}

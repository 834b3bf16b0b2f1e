import { createHash } from "node:crypto";
import { invalidArgument, unauthenticated } from "../errors.js";
import type { WebAuthnStamp } from "./stamp.js";

/**
 * WebAuthn, as the API uses it: passkeys are registered with an attestation and later sign
 * requests (X-Stamp-WebAuthn) whose challenge is the lowercase hex of sha256(body).
 *
 * Strongroom does not know the relying party in advance (the hosted API does not ask for one),
 * so the origin is read from clientDataJSON and the RP ID may be that origin's host or any
 * parent domain of it; the authenticator's rpIdHash must match one of them. A registration records
 * the RP ID it was made for (as its rpIdHash), and every later assertion must be for that same one.
 */

function originOf(clientDataJsonB64url: string): string {
  try {
    const clientData = JSON.parse(Buffer.from(clientDataJsonB64url, "base64url").toString("utf8")) as { origin?: unknown };
    if (typeof clientData.origin === "string") return clientData.origin;
  } catch {
    // fall through
  }
  return "";
}

function candidateRpIds(origin: string): string[] {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return [];
  }
  const labels = host.split(".");
  return labels.map((_, i) => labels.slice(i).join(".")).filter((id) => id.length > 0);
}

/** @simplewebauthn/server and its certificate parsers (a few hundred modules), loaded with the first passkey. */
const simpleWebAuthn = () => import("@simplewebauthn/server");

/** The challenge of an X-Stamp-WebAuthn stamp: base64url of the ASCII hex of sha256(body). */
export function stampChallenge(rawBody: Buffer): string {
  const hex = createHash("sha256").update(rawBody).digest("hex");
  return Buffer.from(hex, "utf8").toString("base64url");
}

export interface StoredAuthenticator {
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  signCount: number;
  /** Hex of the rpIdHash the passkey belongs to; null for one registered before it was recorded. */
  rpIdHash: string | null;
}

export const rpIdHashOf = (rpId: string): string => createHash("sha256").update(rpId, "utf8").digest("hex");

/** Hex of the rpIdHash an assertion's authenticator data carries (its first 32 bytes). */
function assertedRpIdHash(authenticatorDataB64url: string): string {
  return Buffer.from(authenticatorDataB64url, "base64url").subarray(0, 32).toString("hex");
}

/**
 * Verifies an assertion stamp: for the relying party the passkey belongs to, when known. Returns the
 * authenticator's new signature counter and the rpIdHash the assertion was made for.
 */
export async function verifyWebAuthnStamp(
  stamp: WebAuthnStamp,
  rawBody: Buffer,
  authenticator: StoredAuthenticator,
): Promise<{ newCounter: number; rpIdHash: string }> {
  const origin = originOf(stamp.clientDataJson);
  let rpIds = candidateRpIds(origin);
  if (rpIds.length === 0)
    throw unauthenticated("could not verify WebAuthn signature: clientDataJson has no valid origin", "SIGNATURE_INVALID");
  const asserted = assertedRpIdHash(stamp.authenticatorData);
  if (authenticator.rpIdHash !== null) {
    rpIds = rpIds.filter((id) => rpIdHashOf(id) === authenticator.rpIdHash);
    if (rpIds.length === 0 || asserted !== authenticator.rpIdHash) {
      throw unauthenticated(
        `could not verify WebAuthn signature: the assertion is for another relying party than the one credential ${authenticator.credentialId} was registered with`,
        "SIGNATURE_INVALID",
      );
    }
  }
  try {
    const { verifyAuthenticationResponse } = await simpleWebAuthn();
    const result = await verifyAuthenticationResponse({
      response: {
        id: stamp.credentialId,
        rawId: stamp.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          authenticatorData: stamp.authenticatorData,
          clientDataJSON: stamp.clientDataJson,
          signature: stamp.signature,
        },
      },
      expectedChallenge: stampChallenge(rawBody),
      expectedOrigin: origin,
      expectedRPID: rpIds,
      requireUserVerification: false,
      credential: {
        id: authenticator.credentialId,
        publicKey: new Uint8Array(Buffer.from(authenticator.publicKey, "base64url")),
        counter: authenticator.signCount,
      },
    });
    if (!result.verified) throw new Error("signature did not verify");
    return { newCounter: result.authenticationInfo.newCounter, rpIdHash: asserted };
  } catch (error) {
    throw unauthenticated(`could not verify WebAuthn signature: ${(error as Error).message}`, "SIGNATURE_INVALID");
  }
}

export interface AttestationInput {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports: string[];
}

export interface RegisteredAuthenticator {
  credentialId: string;
  publicKey: string;
  aaguid: string;
  attestationType: string;
  signCount: number;
  /** Hex of sha256 of the RP ID the registration was made for. */
  rpIdHash: string;
}

/** Verifies a registration (attestation) against the challenge the client says it used. */
export async function verifyAttestation(attestation: AttestationInput, challenge: string, field: string): Promise<RegisteredAuthenticator> {
  const origin = originOf(attestation.clientDataJson);
  const rpIds = candidateRpIds(origin);
  // Clients pass the challenge either base64url-encoded or as the raw string they handed the browser.
  const accepted = new Set([challenge, Buffer.from(challenge, "utf8").toString("base64url")]);
  try {
    const { verifyRegistrationResponse } = await simpleWebAuthn();
    const result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: "public-key",
        clientExtensionResults: {},
        response: {
          clientDataJSON: attestation.clientDataJson,
          attestationObject: attestation.attestationObject,
          transports: [],
        },
      },
      expectedChallenge: (received) => accepted.has(received),
      expectedOrigin: origin,
      expectedRPID: rpIds,
      requireUserVerification: false,
    });
    if (!result.verified || !result.registrationInfo) throw new Error("attestation did not verify");
    const info = result.registrationInfo;
    if (!info.rpID) throw new Error("the attestation matched no relying party");
    return {
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      aaguid: info.aaguid,
      attestationType: info.fmt,
      signCount: info.credential.counter,
      rpIdHash: rpIdHashOf(info.rpID),
    };
  } catch (error) {
    throw invalidArgument(`${field}: invalid WebAuthn attestation: ${(error as Error).message}`, [
      { field, description: (error as Error).message },
    ]);
  }
}

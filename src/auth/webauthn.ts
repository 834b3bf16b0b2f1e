import { verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server";
import { createHash } from "node:crypto";
import { invalidArgument, unauthenticated } from "../errors.js";
import type { WebAuthnStamp } from "./stamp.js";

/**
 * WebAuthn, as the API uses it: passkeys are registered with an attestation and later sign
 * requests (X-Stamp-WebAuthn) whose challenge is the lowercase hex of sha256(body).
 *
 * Strongroom does not know the relying party in advance (the hosted API does not ask for one),
 * so the origin is read from clientDataJSON and the RP ID may be that origin's host or any
 * parent domain of it; the authenticator's rpIdHash must match one of them.
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
}

/** Verifies an assertion stamp; returns the authenticator's new signature counter. */
export async function verifyWebAuthnStamp(stamp: WebAuthnStamp, rawBody: Buffer, authenticator: StoredAuthenticator): Promise<number> {
  const origin = originOf(stamp.clientDataJson);
  const rpIds = candidateRpIds(origin);
  if (rpIds.length === 0) throw unauthenticated("could not verify WebAuthn signature: clientDataJson has no valid origin", "SIGNATURE_INVALID");
  try {
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
    return result.authenticationInfo.newCounter;
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
}

/** Verifies a registration (attestation) against the challenge the client says it used. */
export async function verifyAttestation(attestation: AttestationInput, challenge: string, field: string): Promise<RegisteredAuthenticator> {
  const origin = originOf(attestation.clientDataJson);
  const rpIds = candidateRpIds(origin);
  // Clients pass the challenge either base64url-encoded or as the raw string they handed the browser.
  const accepted = new Set([challenge, Buffer.from(challenge, "utf8").toString("base64url")]);
  try {
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
    return {
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      aaguid: info.aaguid,
      attestationType: info.fmt,
      signCount: info.credential.counter,
    };
  } catch (error) {
    throw invalidArgument(`${field}: invalid WebAuthn attestation: ${(error as Error).message}`, "REQUEST_INVALID", [
      { field, description: (error as Error).message },
    ]);
  }
}

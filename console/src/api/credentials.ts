import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getWebAuthnAttestation } from "@turnkey/http";

/**
 * A fresh P-256 API key pair, made in this browser: the private key is shown to the user once and kept nowhere
 * (the console holds it in a component's state until the user dismisses it).
 */
export function generateApiKeyPair(): { publicKey: string; privateKey: string } {
  const secretKey = p256.utils.randomSecretKey();
  return { privateKey: bytesToHex(secretKey), publicKey: bytesToHex(p256.getPublicKey(secretKey, true)) };
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromBase64url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

/**
 * Creates a passkey in this browser for `user`, with this page's host as relying party (the console's own
 * passkey sign-in uses the same one), and answers create_authenticators' `authenticators[]` entry: the
 * challenge (base64url of the random bytes the authenticator signed) and the attestation in the API's shape,
 * made by @turnkey/http's getWebAuthnAttestation. A discoverable credential, so that sign-in needs no user name.
 */
export async function createPasskey(
  user: { userId: string; userName: string },
  authenticatorName: string,
  existingCredentialIds: string[],
): Promise<{ authenticatorName: string; challenge: string; attestation: Awaited<ReturnType<typeof getWebAuthnAttestation>> }> {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const attestation = await getWebAuthnAttestation({
    publicKey: {
      rp: { id: window.location.hostname, name: "Strongroom" },
      user: { id: new TextEncoder().encode(user.userId), name: user.userName, displayName: user.userName },
      challenge,
      pubKeyCredParams: [
        { type: "public-key", alg: -7 },
        { type: "public-key", alg: -257 },
      ],
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "preferred" },
      excludeCredentials: existingCredentialIds.map((id) => ({ type: "public-key", id: fromBase64url(id) })),
      timeout: 120_000,
      attestation: "none",
    },
  });
  return { authenticatorName, challenge: base64url(challenge), attestation };
}

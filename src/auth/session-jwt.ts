import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "node:crypto";
import type { ServerKey } from "../crypto/server-keys.js";

export type SessionType = "SESSION_TYPE_READ_WRITE" | "SESSION_TYPE_READ_ONLY";

export interface SessionClaims {
  /** SESSION_TYPE_READ_WRITE / _READ_ONLY, or the name of the session profile a login was issued under. */
  session_type: string;
  user_id: string;
  organization_id: string;
  public_key: string;
  /** Expiry, epoch seconds. */
  exp: number;
  session_profile_id?: string;
  /** The session profile's scope, with its id. */
  scope?: string;
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const HEADER = b64url(JSON.stringify({ alg: "ES256", typ: "JWT" }));

/**
 * A session JWT as the API's login activities return it: signed by the server's signer key with
 * @turnkey/crypto's scheme (ECDSA P-256 over sha256(sha256("header.payload")), raw r‖s, base64url), so
 * verifySessionJwtSignature accepts it with the signer key as the notarizer override. @turnkey/core
 * decodes the payload with an atob that drops "-" and "_", so the payload is padded (with `nonce`)
 * until its base64url has neither.
 */
export function issueSessionJwt(signer: ServerKey, claims: SessionClaims): string {
  let payload = "";
  for (;;) {
    payload = b64url(JSON.stringify({ ...claims, nonce: randomBytes(6).toString("hex") }));
    if (!/[-_]/.test(payload)) break;
  }
  const signingInput = `${HEADER}.${payload}`;
  const signature = signer.signRaw(sha256(new TextEncoder().encode(signingInput)));
  return `${signingInput}.${b64url(signature)}`;
}

export class SessionJwtError extends Error {}

/** Verifies a session JWT issued by this server and returns its claims; expired or foreign ones are refused. */
export function verifySessionJwt(signer: ServerKey, token: string, now: Date): SessionClaims {
  const parts = token.split(".");
  if (parts.length !== 3) throw new SessionJwtError("not a JWT (three dot-separated parts)");
  const [header, payload, signature] = parts as [string, string, string];
  const digest = sha256(sha256(new TextEncoder().encode(`${header}.${payload}`)));
  const valid = (() => {
    try {
      return p256.verify(Buffer.from(signature, "base64url"), digest, Buffer.from(signer.publicKeyHex, "hex"), {
        prehash: false,
        lowS: false,
      });
    } catch {
      return false;
    }
  })();
  if (!valid) throw new SessionJwtError("its signature is not this server's");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as SessionClaims;
  if (typeof claims.exp !== "number" || claims.exp * 1000 <= now.getTime()) throw new SessionJwtError("it has expired");
  return claims;
}

import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** Signs `body` the way @turnkey/api-key-stamper does and returns the X-Stamp header value. */
export function p256Stamp(body: string, publicKey: string, privateKey: string): string {
  const signature = p256.sign(sha256(new TextEncoder().encode(body)), hexToBytes(privateKey), { prehash: false, format: "der" });
  return Buffer.from(JSON.stringify({ publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature: bytesToHex(signature) })).toString(
    "base64url",
  );
}

export function hexToBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/** POSTs exact bytes with the given headers; returns status and parsed JSON. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
    redirect: "manual",
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export function activityBody(type: string, organizationId: string, parameters: unknown, timestampMs = String(Date.now())): string {
  return JSON.stringify({ type, timestampMs, organizationId, parameters });
}

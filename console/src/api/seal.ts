/**
 * The server's seal (docs/operations.md, "The keyring"): GET /strongroom/v1/seal-status and POST /strongroom/v1/unseal,
 * the two routes a sealed server answers. Neither takes a stamp; a share goes to the server and is kept nowhere here.
 */
import type { SealStatus } from "../../../src/crypto/keyring/custody.js";

export type { SealStatus };

async function sealRequest(path: string, body?: unknown): Promise<SealStatus> {
  const response = await fetch(
    path,
    body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  );
  const answer = (await response.json().catch(() => ({}))) as SealStatus & { message?: string };
  if (!response.ok) throw new Error(answer.message ?? `the server answered HTTP ${response.status}`);
  return answer;
}

export const getSealStatus = () => sealRequest("/strongroom/v1/seal-status");

/** One key share; a refused one throws with the server's reason. */
export const giveKeyShare = (key: string) => sealRequest("/strongroom/v1/unseal", { key });

/** Forgets the shares given so far (Vault's unseal reset). */
export const forgetKeyShares = () => sealRequest("/strongroom/v1/unseal", { reset: true });

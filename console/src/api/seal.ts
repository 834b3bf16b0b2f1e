/**
 * The server's seal (docs/operations.md, "The keyring"): GET /strongroom/v1/seal-status and POST /strongroom/v1/unseal,
 * the two routes a sealed server answers. Neither takes a stamp; a share goes to the server and is kept nowhere here.
 */
export interface SealStatus {
  /** The seal provider (STRONGROOM_SEAL): `file`, `shamir`, … */
  type: string;
  /** A keyring exists (with `shamir`: `strongroom init --key-shares` has run). */
  initialized: boolean;
  sealed: boolean;
  /** Key shares needed to unseal (`shamir`; 0 otherwise). */
  t: number;
  /** Key shares printed at init (`shamir`; 0 otherwise). */
  n: number;
  /** Key shares given to this server so far. */
  progress: number;
  /** The data key version new values are sealed under (unsealed only). */
  keyVersion?: number;
}

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

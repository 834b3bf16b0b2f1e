import { p256 } from "@noble/curves/nist.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { IndexedDbStamper } from "@turnkey/indexed-db-stamper";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { ACTIVITY_TYPES } from "./operations.generated.js";

/**
 * How the console talks to Strongroom: as a client of the public API, like any SDK user. Every request is stamped
 * in this browser — with the user's passkey, with a session key that never leaves IndexedDB (non-extractable), or
 * with an API key held in this tab's memory only.
 */
export interface Connection {
  /** The organization the user belongs to (a sub-organization's user lands in it). */
  organizationId: string;
  userId: string;
  method: "passkey" | "api-key";
  /** Reads and ordinary writes. */
  client: TurnkeyClient;
  /** Votes: the passkey itself for a passkey sign-in (one prompt per vote), else the API key. */
  voter: TurnkeyClient;
  /** When a passkey session ends (epoch ms). */
  expiresAt?: number;
}

const baseUrl = window.location.origin;
const SESSION_STORAGE_KEY = "strongroom-console-session";
const SESSION_SECONDS = 3600;

const passkeyClient = () => new TurnkeyClient({ baseUrl }, new WebauthnStamper({ rpId: window.location.hostname }));

interface StoredSession {
  token: string;
  organizationId: string;
  userId: string;
  expiresAt: number;
}

function claimsOf(token: string): { user_id: string; organization_id: string; exp: number } {
  const payload = token.split(".")[1] ?? "";
  return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { user_id: string; organization_id: string; exp: number };
}

async function sessionStamper(): Promise<IndexedDbStamper> {
  const stamper = new IndexedDbStamper();
  await stamper.init();
  return stamper;
}

/**
 * Passkey sign-in: one WebAuthn ceremony signs stamp_login for a fresh IndexedDB key; the session that key holds
 * stamps everything but votes. The organization may be the parent of the user's own (its id is in the session).
 */
export async function signInWithPasskey(organizationId: string): Promise<Connection> {
  const stamper = await sessionStamper();
  await stamper.resetKeyPair();
  const response = await passkeyClient().stampLogin({
    type: ACTIVITY_TYPES.stamp_login,
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { publicKey: stamper.getPublicKey()!, expirationSeconds: String(SESSION_SECONDS) },
  });
  const token = response.activity.result.stampLoginResult?.session;
  if (!token) throw new Error(`stamp_login did not complete: ${response.activity.status}`);
  const claims = claimsOf(token);
  const session: StoredSession = { token, organizationId: claims.organization_id, userId: claims.user_id, expiresAt: claims.exp * 1000 };
  localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify(session));
  return passkeyConnection(session, stamper);
}

function passkeyConnection(session: StoredSession, stamper: IndexedDbStamper): Connection {
  return {
    organizationId: session.organizationId,
    userId: session.userId,
    method: "passkey",
    client: new TurnkeyClient({ baseUrl }, stamper),
    voter: passkeyClient(),
    expiresAt: session.expiresAt,
  };
}

/** The passkey session of an earlier visit, while it lasts. */
export async function resumeSession(): Promise<Connection | undefined> {
  const stored = localStorage.getItem(SESSION_STORAGE_KEY);
  if (!stored) return undefined;
  const session = JSON.parse(stored) as StoredSession;
  if (session.expiresAt <= Date.now()) {
    localStorage.removeItem(SESSION_STORAGE_KEY);
    return undefined;
  }
  return passkeyConnection(session, await sessionStamper());
}

/** The compressed public key of a P-256 private key (hex): all an API key sign-in needs is the private half. */
export function publicKeyOf(apiPrivateKey: string): string {
  const hex = apiPrivateKey.trim().toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("The API private key is 64 hexadecimal characters (apiPrivateKey).");
  return bytesToHex(p256.getPublicKey(hexToBytes(hex), true));
}

/** API key sign-in: the key stays in this tab's memory; whoami tells whose it is. */
export async function signInWithApiKey(organizationId: string, apiPrivateKey: string): Promise<Connection> {
  const apiPublicKey = publicKeyOf(apiPrivateKey);
  const client = new TurnkeyClient(
    { baseUrl },
    new ApiKeyStamper({ apiPublicKey, apiPrivateKey: apiPrivateKey.trim().replace(/^0x/, "") }),
  );
  const whoami = await client.getWhoami({ organizationId });
  return { organizationId: whoami.organizationId, userId: whoami.userId, method: "api-key", client, voter: client };
}

export async function signOut(): Promise<void> {
  localStorage.removeItem(SESSION_STORAGE_KEY);
  await (await sessionStamper()).clear();
}

import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/core";
import type { TestServer } from "../helpers/server.js";

/**
 * @turnkey/core's TurnkeyClient, unchanged, as an app uses it once logged in: its API key stamper holds the
 * user's key and its storage answers the active session. `init()` would build that storage from the browser's
 * (it refuses Node), so the two are handed in here; every method then runs as the package ships it.
 */
export function loggedInCoreClient(server: TestServer, key: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string) {
  const stamper = new ApiKeyStamper({ apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
  const client = new TurnkeyClient({ apiBaseUrl: server.url, organizationId }, stamper as never);
  const session = { organizationId, userId: "", publicKey: key.apiPublicKey, expiry: Date.now() / 1000 + 3600 };
  Object.assign(client as object, {
    storageManager: { getActiveSession: async () => session, getActiveSessionKey: async () => "session" },
  });
  (client as unknown as { httpClient: unknown }).httpClient = client.createHttpClient();
  return client;
}

/** Waits (generously: a loaded machine) until `check` passes. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

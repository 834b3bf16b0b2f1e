import { encryptOauth2ClientSecret } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCountingOAuthProvider, type CountingOAuthProvider } from "../helpers/counting-oauth-provider.js";
import { initRoot, sdkClient, sharedPostgres, type RootCredentials } from "../helpers/cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/processes.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";

const CLIENT_ID = "cluster-test-client";
const REDIRECT_URI = "https://app.example/oauth/callback";

/**
 * The same oauth2_authenticate body sent at once to two `strongroom serve` processes on one PostgreSQL: the
 * body's fingerprint is claimed in the database before the code is redeemed, so the provider's token endpoint
 * is called once and both processes answer the one activity.
 */
describe.skipIf(!process.env.DATABASE_URL)("an outside call across processes (needs DATABASE_URL)", () => {
  let provider: CountingOAuthProvider;
  let database: Awaited<ReturnType<typeof sharedPostgres>>;
  let processes: ServerProcess[] = [];
  let root: RootCredentials;
  let credentialId: string;

  beforeAll(async () => {
    provider = await startCountingOAuthProvider(500);
    database = await sharedPostgres(provider.env);
    root = initRoot(database.env);
    processes = await Promise.all([0, 1].map(() => startServerProcess(database.env)));
    const keys = (await (await fetch(`${processes[0]!.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
    const encryptedClientSecret = await encryptOauth2ClientSecret("client-secret", keys.encryptionPublicKey);
    const client = sdkClient(processes[0]!.url, root, root.organizationId);
    credentialId = (await client.createOauth2Credential({ provider: "OAUTH2_PROVIDER_X", clientId: CLIENT_ID, encryptedClientSecret }))
      .oauth2CredentialId;
  }, 300_000);
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await database?.drop();
    await provider?.stop();
  });

  it("redeems the code once, and both processes answer the same activity", async () => {
    const code = await provider.authorize(CLIENT_ID, REDIRECT_URI);
    const parameters = { oauth2CredentialId: credentialId, ...code, redirectUri: REDIRECT_URI, nonce: "cd".repeat(32) };
    const body = activityBody("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", root.organizationId, parameters);
    const stamp = { "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey) };
    const before = provider.tokenCalls();
    const answers = await Promise.all(processes.map((p) => post(`${p.url}/public/v1/submit/oauth2_authenticate`, body, stamp)));
    const activities = answers.map((a) => a.json.activity as { id: string; status: string });
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(activities[0]!.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activities[1]!.id).toBe(activities[0]!.id);
    expect(provider.tokenCalls() - before).toBe(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createXCredential, startCountingOAuthProvider, type CountingOAuthProvider } from "../helpers/counting-oauth-provider.js";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

/**
 * An activity's outside effect — oauth2_authenticate redeeming an authorization code at the provider's token
 * endpoint — happens only once the decision allows the activity, and once per activity: never for a denied
 * request, not while it waits for consensus (at its deciding approval instead), and not again for a twin body
 * sent at the same time. A real OAuth 2.0 server (oauth2-mock-server) on loopback plays X; its token endpoint
 * sits behind a counting relay that answers slowly, so that concurrent requests overlap.
 */
const CLIENT_ID = "pipeline-test-client";
const REDIRECT_URI = "https://app.example/oauth/callback";

describe("outside calls of oauth2_authenticate", () => {
  let provider: CountingOAuthProvider;
  let server: TestServer;
  let credentialId: string;
  const tokenCalls = () => provider.tokenCalls();

  beforeAll(async () => {
    provider = await startCountingOAuthProvider();
    server = await startTestServer({ env: provider.env });
    credentialId = await createXCredential(server, CLIENT_ID);
  });
  afterAll(async () => {
    await server?.close();
    await provider?.stop();
  });

  async function authorize() {
    const code = await provider.authorize(CLIENT_ID, REDIRECT_URI);
    return { oauth2CredentialId: credentialId, ...code, redirectUri: REDIRECT_URI, nonce: "ab".repeat(32) };
  }

  async function addUser(name: string) {
    const { userId, credentials } = await createUserWithApiKey(server.client(), name);
    return { userId, client: server.client(credentials) };
  }

  it("a denied request does not redeem the code", async () => {
    const eve = await addUser("eve"); // not in the root quorum, and no policy allows her anything
    const before = tokenCalls();
    const denied = await refusal(eve.client.oauth2Authenticate(await authorize()));
    expect(denied.code).toBe(7);
    expect(tokenCalls() - before).toBe(0);
  });

  it("two identical bodies sent at once redeem the code once and answer the same activity", async () => {
    const body = activityBody("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", server.root.organizationId, await authorize());
    const stamp = { "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) };
    const before = tokenCalls();
    const answers = await Promise.all([0, 1].map(() => post(`${server.url}/public/v1/submit/oauth2_authenticate`, body, stamp)));
    const activities = answers.map((a) => a.json.activity as { id: string; status: string; result: Record<string, unknown> });
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(activities[0]!.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activities[1]!.id).toBe(activities[0]!.id);
    expect(tokenCalls() - before).toBe(1);

    const again = await post(`${server.url}/public/v1/submit/oauth2_authenticate`, body, stamp);
    expect((again.json.activity as { id: string }).id).toBe(activities[0]!.id);
    expect(tokenCalls() - before).toBe(1);
  });

  it("one that waits for consensus redeems the code once, at its deciding approval, even when two approvals arrive at once", async () => {
    const bob = await addUser("bob");
    const carol = await addUser("carol");
    await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, bob.userId, carol.userId] });
    let before = tokenCalls();
    const submitted = await server.client().oauth2Authenticate(await authorize());
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(tokenCalls() - before).toBe(0);

    const approved = await bob.client.approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status, JSON.stringify(approved.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((approved.activity.result.oauth2AuthenticateResult as { oidcToken?: string }).oidcToken).toBeTruthy();
    expect(tokenCalls() - before).toBe(1);

    before = tokenCalls();
    const waiting = await server.client().oauth2Authenticate(await authorize());
    expect(waiting.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const votes = await Promise.allSettled(
      [bob, carol].map((u) => u.client.approveActivity({ fingerprint: waiting.activity.fingerprint })),
    );
    const completed = votes.flatMap((v) => (v.status === "fulfilled" ? [v.value.activity.status] : []));
    expect(completed).toContain("ACTIVITY_STATUS_COMPLETED");
    for (const vote of votes) if (vote.status === "rejected") expect(String(vote.reason)).toContain("ACTIVITY_STATUS_COMPLETED");
    expect(tokenCalls() - before).toBe(1);
  });
});

import { TurnkeyClient } from "@turnkey/http";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";

/** The same credential (key pair, credential id, counter) presented for another relying party and origin. */
function underAnotherRp(original: SoftwareAuthenticator, rpId: string, origin: string): SoftwareAuthenticator {
  const copy = new SoftwareAuthenticator(rpId, origin);
  Object.assign(copy, { secret: original.secret, credentialId: original.credentialId, counter: original.counter });
  return copy;
}

describe("passkeys are bound to the relying party they were registered with", () => {
  let server: TestServer;
  const whoami = (authenticator: SoftwareAuthenticator) => {
    authenticator.install();
    return new TurnkeyClient({ baseUrl: server.url }, new WebauthnStamper({ rpId: authenticator.rpId })).getWhoami({
      organizationId: server.root.organizationId,
    });
  };
  const register = async (authenticator: SoftwareAuthenticator, name: string) => {
    const challenge = randomBytes(32).toString("base64url");
    const { userIds } = await server.client().createUsers({
      users: [
        {
          userName: name,
          apiKeys: [],
          authenticators: [{ authenticatorName: name, challenge, attestation: authenticator.attest(challenge) }],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    return userIds[0]!;
  };

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("refuses (401) an assertion for another relying party, even one the origin would allow, and accepts the registered one", async () => {
    const authenticator = new SoftwareAuthenticator("login.app.example.com", "https://login.app.example.com");
    const userId = await register(authenticator, "bound");
    expect((await whoami(authenticator)).userId).toBe(userId);
    authenticator.counter += 1;

    // A parent domain of the origin: a valid relying party for that origin, but not the one registered.
    const parent = underAnotherRp(authenticator, "app.example.com", "https://login.app.example.com");
    const refused = (await whoami(parent).catch((e: unknown) => e)) as { code?: number; message: string };
    expect(refused.code).toBe(16);
    expect(refused.message).toContain("relying party");

    // Another site altogether.
    const elsewhere = underAnotherRp(authenticator, "evil.example.net", "https://evil.example.net");
    elsewhere.counter += 5;
    const refusedToo = (await whoami(elsewhere).catch((e: unknown) => e)) as { code?: number; message: string };
    expect(refusedToo.code).toBe(16);
    expect(refusedToo.message).toContain("relying party");

    authenticator.counter += 10;
    expect((await whoami(authenticator)).userId).toBe(userId);
  });

  it("binds a passkey registered before the relying party was recorded on its first use, then refuses other relying parties", async () => {
    const authenticator = new SoftwareAuthenticator("old.example.com", "https://old.example.com");
    const userId = await register(authenticator, "legacy");
    // As a passkey registered before migration 0013 is: no relying party recorded.
    await server.services.db.query("UPDATE authenticators SET rp_id_hash = NULL WHERE user_id = $1", [userId]);
    expect((await whoami(authenticator)).userId).toBe(userId);
    const [row] = await server.services.db.query<{ rp_id_hash: string | null }>(
      "SELECT rp_id_hash FROM authenticators WHERE user_id = $1",
      [userId],
    );
    expect(row!.rp_id_hash).toMatch(/^[0-9a-f]{64}$/);
    const elsewhere = underAnotherRp(authenticator, "evil.example.net", "https://evil.example.net");
    elsewhere.counter += 5;
    const refused = (await whoami(elsewhere).catch((e: unknown) => e)) as { code?: number; message: string };
    expect(refused.code).toBe(16);
    expect(refused.message).toContain("relying party");
  });
});

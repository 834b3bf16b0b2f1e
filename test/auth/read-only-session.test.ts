import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueSessionJwt } from "../../src/auth/session-jwt.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("read-only session tokens (X-Session)", () => {
  let server: TestServer;
  const whoami = (organizationId: string, session: string) =>
    post(`${server.url}/public/v1/query/whoami`, JSON.stringify({ organizationId }), { "X-Session": session });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("reads the organization the session belongs to", async () => {
    const { session } = await server.client().createReadOnlySession({});
    const { status, json } = await whoami(server.root.organizationId, session);
    expect(status).toBe(200);
    expect(json).toMatchObject({ organizationId: server.root.organizationId, userId: server.root.userId });
  });

  it("refuses (401) a session of one organization naming another, unrelated one", async () => {
    const { session } = await server.client().createReadOnlySession({});
    const stranger = await initRootOrganization(server.services, { organizationName: "Stranger" });
    const { status, json } = await whoami(stranger.organizationId, session);
    expect(status).toBe(401);
    expect(json).toMatchObject({ code: 16, message: expect.stringMatching(/belongs to organization .* not organization/) });
  });

  it("refuses (401) a read-write session token sent as X-Session, though the server signed it", async () => {
    const readWrite = issueSessionJwt(server.services.signer, {
      session_type: "SESSION_TYPE_READ_WRITE",
      user_id: server.root.userId,
      organization_id: server.root.organizationId,
      public_key: server.root.apiPublicKey,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    const { status, json } = await whoami(server.root.organizationId, readWrite);
    expect(status).toBe(401);
    expect(json).toMatchObject({ code: 16, message: expect.stringContaining("only read-only sessions are accepted") });
  });
});

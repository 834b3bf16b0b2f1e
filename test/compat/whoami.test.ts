import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("whoami through @turnkey/sdk-server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("names the root user and organization", async () => {
    const whoami = await server.client().getWhoami({});
    expect(whoami).toEqual({
      organizationId: server.root.organizationId,
      organizationName: "Test organization",
      userId: server.root.userId,
      username: "Root user",
    });
  });

  it("names the parent organization and its user when a parent's credential reads a sub-organization", async () => {
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "Child",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "child root", apiKeys: [], authenticators: [], oauthProviders: [] }],
      disableSmsAuth: true,
    });
    const whoami = await server.client(undefined, subOrganizationId).getWhoami({});
    expect(whoami).toEqual({
      organizationId: server.root.organizationId,
      organizationName: "Test organization",
      userId: server.root.userId,
      username: "Root user",
    });
  });
});

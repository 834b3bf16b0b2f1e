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
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { watchStore } from "../helpers/watch-store.js";
import { createUserWithApiKey } from "../helpers/users.js";
import { controlIntent, createControl, httpClient, refused } from "../helpers/velocity-controls.js";

/** The decision's own read of an organization's controls (src/records/velocity-control.ts). */
const CONTROLS_READ = /FROM velocity_controls WHERE organization_id = \$1 ORDER BY seq/;
/** Authentication's statement for a submission, which says whether the user's organization has controls. */
const AUTHENTICATION = /AS stamp_user_organization_has_velocity_controls/;

/**
 * A submission's authentication says whether the deciding organization has velocity controls, so an organization
 * without any pays no read of them in the activity's transaction; one with controls reads them there, as before.
 */
describe("the decision's read of velocity controls", () => {
  let server: TestServer;
  let store: ReturnType<typeof watchStore>;
  const rootClient = () => httpClient(server.url, { apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey! });
  const bucketTotal = async (controlId: string) => {
    const [bucket] = await server.services.db.query<{ total: string }>(
      "SELECT total::text AS total FROM velocity_control_buckets WHERE control_id = $1",
      [controlId],
    );
    return BigInt(bucket?.total ?? "0");
  };
  const rename = async () => {
    store.statements = [];
    await server.client().updateUserName({ userId: server.root.userId, userName: `Root ${Math.random()}` });
    return store.statements;
  };

  // A server of its own for each test: each starts with an organization without controls.
  beforeEach(async () => {
    server = await startTestServer();
    store = watchStore(server);
  });
  afterEach(async () => server?.close());

  it("reads none for an organization without controls, and reads and counts them once there is one", async () => {
    const before = await rename();
    expect(before.filter((sql) => AUTHENTICATION.test(sql))).toHaveLength(1);
    expect(before.filter((sql) => CONTROLS_READ.test(sql))).toEqual([]);

    const id = await createControl(
      rootClient(),
      server.root.organizationId,
      controlIntent("renames", { activityExecution: {} }, { method: "COUNT", threshold: "1000", groupBy: "organization" }),
    );
    const counted = await bucketTotal(id);
    const after = await rename();
    expect(after.filter((sql) => CONTROLS_READ.test(sql))).toHaveLength(1);
    expect((await bucketTotal(id)) - counted).toBe(10n ** 18n); // one activity, in scaled units
  });

  it("fails closed on a control created between authentication and decision: a deny policy naming it denies", async () => {
    const erin = await createUserWithApiKey(server.client(), "erin");
    await server.client().createPolicy({
      policyName: "erin may",
      effect: "EFFECT_ALLOW",
      condition: "true",
      consensus: `approvers.any(user, user.id == '${erin.userId}')`,
      notes: "",
    });
    let created = false;
    const hook = async () => {
      await createControl(
        rootClient(),
        server.root.organizationId,
        controlIntent("cap", { activityExecution: {} }, { method: "COUNT", threshold: "10" }),
      );
      await server.client().createPolicy({ policyName: "deny on cap", effect: "EFFECT_DENY", condition: "controls.cap", notes: "" });
      created = true;
    };
    store.afterStatement = { pattern: AUTHENTICATION, hook };
    const refusal = await refused(server.client(erin.credentials).updateUserName({ userId: erin.userId, userName: "erin again" }));
    expect(created).toBe(true);
    expect(refusal.message).toContain("names a velocity control the organization does not have");
    expect((await server.client().getUser({ userId: erin.userId })).user.userName).toBe("erin");
  });
});

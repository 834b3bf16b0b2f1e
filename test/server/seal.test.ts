import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { addKeyVersion, ROTATION_GRACE_POLLS } from "../../src/crypto/keyring/keyring-rows.js";
import { keyringReport } from "../../src/crypto/keyring/keyring-report.js";
import { insertAuditEvent } from "../../src/audit/record.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { keyringThroughControlSocket } from "../../src/server/control-socket.js";
import type { RunningServer } from "../../src/server/start.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import {
  ethereumWallet,
  eventually,
  expectRefusedWhileSealed,
  persistentStore,
  sealStatus,
  unseal,
  unsealedAtStart,
} from "../helpers/sealed-server.js";

/** Whether any file under `dir` holds `needle`, byte for byte. */
function anyFileHolds(dir: string, needle: Buffer): string | undefined {
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      const found = anyFileHolds(file, needle);
      if (found) return found;
    } else if (stat?.isFile() && readFileSync(file).includes(needle)) return file;
  }
  return undefined;
}

const POLL_MS = 100;

describe(`the keyring under the file provider: seal status, rotation while serving, seal on demand (${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`, () => {
  const stores: { drop(): Promise<void> }[] = [];
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const store of stores) await store.drop();
  });

  it("takes STRONGROOM_SEAL=file (the default), and refuses a provider it does not know, naming those it does", () => {
    expect(resolveConfig({}, {}).seal).toEqual({ provider: "file", pollMs: 1000 });
    expect(resolveConfig({}, { STRONGROOM_SEAL: "file", STRONGROOM_KEYRING_POLL_MS: "250" }).seal).toEqual({
      provider: "file",
      pollMs: 250,
    });
    expect(() => resolveConfig({}, { STRONGROOM_SEAL: "vault" })).toThrow(
      'STRONGROOM_SEAL must be file, pkcs11, shamir, awskms; not "vault"',
    );
    expect(() => resolveConfig({}, { STRONGROOM_KEYRING_POLL_MS: "0" })).toThrow("STRONGROOM_KEYRING_POLL_MS must be a positive integer");
  });

  it(
    "reports its seal, rotates while serving, answers 503 everywhere once sealed on demand, and unseals at restart",
    { timeout: 120_000 },
    async () => {
      const store = await persistentStore();
      stores.push(store);
      const env = { STRONGROOM_MASTER_KEY: "3c".repeat(32), STRONGROOM_AUDIT_POLL_MS: "50" };
      const first = await store.start(env);
      servers.push(first);
      expect(await sealStatus(first.url)).toEqual(unsealedAtStart("file"));
      // The file provider takes no shares: a well-formed unseal is refused (and changes nothing), a malformed one is bad input.
      const refused = await unseal(first.url, { key: "AAAA" });
      expect(refused.status).toBe(400);
      expect(refused.json.message).toContain("unseals through its file seal provider when it starts");
      const malformed = await unseal(first.url, { share: 1 });
      expect(malformed.status).toBe(400);
      expect(malformed.json.details).toContainEqual(
        expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: "key" })] }),
      );
      expect(await sealStatus(first.url)).toMatchObject({ sealed: false, keyVersion: 1 });

      const root = await initRootOrganization(first.services, {});
      const { sign } = await ethereumWallet(first.url, root);
      const signed = await sign(first.url);

      // Rotation while serving: embedded through the server's control socket (what `strongroom keyring rotate` does
      // then), PostgreSQL through the store function the CLI calls. The worker moves the values and retires version 1.
      if (!store.databaseUrl) expect((await keyringThroughControlSocket(store.dataDir, "rotate"))!.version).toBe(2);
      else expect(await addKeyVersion(first.services.db, first.services.custody.wrapper!, ROTATION_GRACE_POLLS * POLL_MS)).toBe(2);
      await eventually(async () => {
        const report = await keyringReport(first.services.db);
        return report.versions.length === 1 && report.versions[0]!.version === 2;
      }, "the values moved to version 2 and version 1 retired");
      const report = await keyringReport(first.services.db);
      expect(report.versions[0]!.values).toBeGreaterThan(5);
      expect(report.valuesBeforeKeyring).toBe(0);
      expect(await sealStatus(first.url)).toMatchObject({ sealed: false, keyVersion: 2 });
      expect(await sign(first.url)).toBe(signed);

      // Seal on demand: the root quorum of the top-level organization; the process drops its keys.
      const body = activityBody("ACTIVITY_TYPE_SEAL_SERVER", root.organizationId, {});
      const sealed = await post(`${first.url}/strongroom/v1/submit/seal_server`, body, {
        "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey!),
      });
      expect(sealed.status, JSON.stringify(sealed.json)).toBe(200);
      expect((sealed.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
      await eventually(async () => (await sealStatus(first.url)).sealed, "the process sealed itself");
      expect(await sealStatus(first.url)).toEqual({ type: "file", initialized: true, sealed: true, t: 0, n: 0, progress: 0 });
      expect(first.services.custody.keyring.sealed).toBe(true);
      expect(() => first.services.signer).toThrow(/sealed/);
      expect(() => first.services.audit.keys).toThrow(/sealed/);
      expect(() => first.services.webhooks.signingKey).toThrow(/sealed/);
      await expectRefusedWhileSealed(first);
      expect((await unseal(first.url, { key: "AAAA" })).status).toBe(400);
      // The workers that need keys stopped with the seal: an event committed now waits for an unsealed integrator.
      const pending = async (server: RunningServer) =>
        Number((await server.services.db.query<{ n: string }>("SELECT count(*)::text AS n FROM audit_pending"))[0]!.n);
      await eventually(async () => (await pending(first)) === 0, "the events before the seal integrated");
      await insertAuditEvent(first.services.db, { organizationId: null, time: new Date(), type: "test.while-sealed", details: {} });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await pending(first)).toBe(1);
      await first.close();
      servers.pop();

      // A restart unseals: the file provider reads its key at start.
      const second = await store.start(env);
      servers.push(second);
      expect(await sealStatus(second.url)).toMatchObject({ sealed: false, keyVersion: 2 });
      expect(await sign(second.url)).toBe(signed);
      await eventually(async () => (await pending(second)) === 0, "the unsealed integrator took the event");
      await second.close();
      servers.pop();

      // Embedded: after the retirement no file of the data directory holds a value sealed under version 1.
      if (!store.databaseUrl && existsSync(store.dataDir)) expect(anyFileHolds(store.dataDir, Buffer.from("v2:1:"))).toBeUndefined();
    },
  );
});

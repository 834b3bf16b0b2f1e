import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { splitSecret } from "../../src/crypto/keyring/shares.js";
import { initKeyringAndRoot } from "../../src/server/control-socket.js";
import type { RunningServer } from "../../src/server/start.js";
import { runCli } from "../helpers/processes.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { ethereumWallet, eventually, expectRefusedWhileSealed, persistentStore, sealStatus, unseal } from "../helpers/sealed-server.js";

interface Printed {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  keyShares?: string[];
  keyThreshold?: number;
  recoveryShares?: string[];
  recoveryThreshold?: number;
}

/**
 * STRONGROOM_SEAL=shamir through its public interface: `strongroom init --key-shares` (the CLI, a real process)
 * prints the shares once; servers on the store start sealed and unseal over HTTP; the recovery key recovers the store.
 */
describe(`STRONGROOM_SEAL=shamir: init, sealed start, unseal by shares, seal on demand, recovery (${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`, () => {
  const stores: { drop(): Promise<void> }[] = [];
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const store of stores) await store.drop();
  });
  const env = { STRONGROOM_SEAL: "shamir" };

  it.runIf(process.env.DATABASE_URL)(
    "in a cluster each process unseals with its own shares, and a seal on demand seals them all",
    { timeout: 60_000 },
    async () => {
      const store = await persistentStore();
      stores.push(store);
      const a = await store.start(env);
      servers.push(a);
      const b = await store.start(env);
      servers.push(b);
      expect(await sealStatus(b.url)).toMatchObject({ initialized: false, sealed: true });
      // init through one process (as the control socket or the CLI does): it unseals that process only.
      const root = await initKeyringAndRoot(a.services, { keyring: { keyShares: { shares: 3, threshold: 2 } } });
      const shares = root.keyShares!;
      expect(await sealStatus(a.url)).toMatchObject({ sealed: false, t: 2, n: 3 });
      expect((await fetch(`${b.url}/health`)).status).toBe(503);
      expect((await unseal(b.url, { key: shares[2] })).json).toMatchObject({ initialized: true, sealed: true, t: 2, n: 3, progress: 1 });
      expect((await unseal(b.url, { key: shares[1] })).json).toMatchObject({ sealed: false });
      const wallet = await ethereumWallet(a.url, root, "two processes");
      expect(await wallet.sign(b.url)).toBe(await wallet.sign(a.url));

      const body = activityBody("ACTIVITY_TYPE_SEAL_SERVER", root.organizationId, {});
      const sealed = await post(`${b.url}/strongroom/v1/submit/seal_server`, body, {
        "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey!),
      });
      expect(sealed.status, JSON.stringify(sealed.json)).toBe(200);
      await eventually(async () => (await sealStatus(a.url)).sealed && (await sealStatus(b.url)).sealed, "both processes sealed");
      await unseal(a.url, { key: shares[0] });
      await unseal(a.url, { key: shares[1] });
      expect(await sealStatus(a.url)).toMatchObject({ sealed: false });
      expect(await sealStatus(b.url)).toMatchObject({ sealed: true, progress: 0 });
      await expectRefusedWhileSealed(b);
    },
  );

  it("takes STRONGROOM_SEAL=shamir", () => {
    expect(resolveConfig({}, env).seal).toEqual({ provider: "shamir", pollMs: 1000 });
  });

  it(
    "unseals with a threshold of the shares init printed, refuses a wrong combination, seals on demand, and recovers",
    { timeout: 60_000 },
    async () => {
      const store = await persistentStore();
      stores.push(store);
      const cliEnv: NodeJS.ProcessEnv = {
        ...process.env,
        ...env,
        STRONGROOM_DATA_DIR: store.dataDir,
        LOG_LEVEL: "warn",
        ...(store.databaseUrl ? { DATABASE_URL: store.databaseUrl } : {}),
      };
      if (!store.databaseUrl) delete cliEnv.DATABASE_URL;

      // init: the keyring under a root key split 5 ways (3 unseal), a recovery key split 3 ways (2 recover), printed once.
      const init = runCli(
        ["init", "--key-shares", "5", "--key-threshold", "3", "--recovery-shares", "3", "--recovery-threshold", "2"],
        cliEnv,
      );
      expect(init.status, init.stderr).toBe(0);
      const printed = JSON.parse(init.stdout) as Printed;
      expect(printed.keyShares).toHaveLength(5);
      expect(new Set(printed.keyShares).size).toBe(5);
      expect(printed.keyThreshold).toBe(3);
      expect(printed.recoveryShares).toHaveLength(3);
      expect(printed.recoveryThreshold).toBe(2);
      const shares = printed.keyShares!;

      // A server on the store starts sealed: Vault's fields, and 503 everywhere else.
      const first = await store.start(env);
      servers.push(first);
      expect(await sealStatus(first.url)).toEqual({ type: "shamir", initialized: true, sealed: true, t: 3, n: 5, progress: 0 });
      await expectRefusedWhileSealed(first);
      // The shares are printed once: a second init refuses, and answers no share.
      await expect(initKeyringAndRoot(first.services, { keyring: { keyShares: { shares: 5, threshold: 3 } } })).rejects.toThrow(
        "the keyring exists already",
      );

      // Bad input counts nothing.
      const notShare = await unseal(first.url, { key: "not a share" });
      expect(notShare.status).toBe(400);
      expect(notShare.json.message).toContain("base64 of 33 bytes");
      expect((await unseal(first.url, {})).status).toBe(400);
      expect(await sealStatus(first.url)).toMatchObject({ sealed: true, progress: 0 });

      // T−1 shares leave it sealed with progress T−1; the same share twice is refused and not counted.
      expect((await unseal(first.url, { key: shares[0] })).json).toEqual({
        type: "shamir",
        initialized: true,
        sealed: true,
        t: 3,
        n: 5,
        progress: 1,
      });
      const again = await unseal(first.url, { key: shares[0] });
      expect(again.status).toBe(400);
      expect(again.json.message).toContain("already given");
      // An altered share (same x coordinate, another value) cannot belong with the one given: refused, progress reset.
      const altered = Buffer.from(shares[0]!, "base64");
      altered[0]! ^= 1;
      const alteredAnswer = await unseal(first.url, { key: altered.toString("base64") });
      expect(alteredAnswer.status).toBe(400);
      expect(alteredAnswer.json.message).toContain("do not combine into this store's root key");
      expect(await sealStatus(first.url)).toMatchObject({ sealed: true, progress: 0 });
      expect((await unseal(first.url, { key: shares[0] })).json).toMatchObject({ progress: 1 });
      expect((await unseal(first.url, { key: shares[1] })).json).toMatchObject({ sealed: true, progress: 2 });
      await expectRefusedWhileSealed(first);

      // A share of another split (another init's root key) is refused explicitly, and the progress resets.
      const otherShares = await splitSecret(randomBytes(32), 5, 3);
      const otherShare = otherShares.find((s) => !shares.some((own) => Buffer.from(own, "base64")[32] === Buffer.from(s, "base64")[32]))!;
      const wrong = await unseal(first.url, { key: otherShare });
      expect(wrong.status).toBe(400);
      expect(wrong.json.code).toBe(3);
      expect(wrong.json.message).toContain("do not combine into this store's root key");
      expect(await sealStatus(first.url)).toMatchObject({ sealed: true, progress: 0 });
      await expectRefusedWhileSealed(first);

      // {"reset": true} forgets the shares given (Vault's unseal reset).
      expect((await unseal(first.url, { key: shares[4] })).json).toMatchObject({ progress: 1 });
      expect((await unseal(first.url, { reset: true })).json).toMatchObject({ sealed: true, progress: 0 });

      // Any three shares unseal it.
      await unseal(first.url, { key: shares[4] });
      await unseal(first.url, { key: shares[2] });
      const unsealed = await unseal(first.url, { key: shares[0] });
      expect(unsealed.status).toBe(200);
      expect(unsealed.json).toEqual({ type: "shamir", initialized: true, sealed: false, t: 3, n: 5, progress: 0, keyVersion: 1 });
      expect((await fetch(`${first.url}/health`)).status).toBe(200);
      const { sign } = await ethereumWallet(first.url, printed, "behind shares");
      const signed = await sign(first.url);
      await first.close();
      servers.pop();

      // A restart starts sealed; T good shares unseal it and the wallet created before signs.
      const second = await store.start(env);
      servers.push(second);
      expect(await sealStatus(second.url)).toEqual({ type: "shamir", initialized: true, sealed: true, t: 3, n: 5, progress: 0 });
      await expectRefusedWhileSealed(second);
      for (const share of [shares[3], shares[1], shares[2]]) await unseal(second.url, { key: share });
      expect(await sealStatus(second.url)).toMatchObject({ sealed: false });
      expect(await sign(second.url)).toBe(signed);

      // Sealing on demand drops the keys: shares are needed again.
      const body = activityBody("ACTIVITY_TYPE_SEAL_SERVER", printed.organizationId, {});
      const sealed = await post(`${second.url}/strongroom/v1/submit/seal_server`, body, {
        "X-Stamp": p256Stamp(body, printed.apiPublicKey, printed.apiPrivateKey),
      });
      expect(sealed.status, JSON.stringify(sealed.json)).toBe(200);
      await eventually(async () => (await sealStatus(second.url)).sealed, "the process sealed itself");
      expect(second.services.custody.keyring.sealed).toBe(true);
      expect(() => second.services.signer).toThrow(/sealed/);
      await expectRefusedWhileSealed(second);
      expect(await sealStatus(second.url)).toEqual({ type: "shamir", initialized: true, sealed: true, t: 3, n: 5, progress: 0 });
      for (const share of [shares[0], shares[4], shares[3]]) await unseal(second.url, { key: share });
      expect(await sign(second.url)).toBe(signed);
      await second.close();
      servers.pop();

      // Recovery: the key shares are lost; two recovery shares rewrap the keyring under a new root key and new shares.
      const recoveryFile = join(store.dataDir, "recovery-shares.json");
      writeFileSync(recoveryFile, JSON.stringify([printed.recoveryShares![2], printed.recoveryShares![0]]), { mode: 0o600 });
      const recovered = runCli(
        ["keyring", "recover", "--recovery-shares-file", recoveryFile, "--key-shares", "3", "--key-threshold", "2"],
        cliEnv,
      );
      expect(recovered.status, recovered.stderr).toBe(0);
      const recovery = JSON.parse(recovered.stdout) as {
        recovered: number[];
        wrappedBy: string;
        keyShares: string[];
        keyThreshold: number;
      };
      expect(recovery).toMatchObject({ recovered: [1], wrappedBy: "shamir", keyThreshold: 2 });
      expect(recovery.keyShares).toHaveLength(3);

      const third = await store.start(env);
      servers.push(third);
      expect(await sealStatus(third.url)).toMatchObject({ sealed: true, t: 2, n: 3, progress: 0 });
      // The old root's shares open nothing any more.
      await unseal(third.url, { key: shares[0] });
      const old = await unseal(third.url, { key: shares[1] });
      expect(old.status).toBe(400);
      expect(await sealStatus(third.url)).toMatchObject({ sealed: true, progress: 0 });
      await unseal(third.url, { key: recovery.keyShares[1] });
      expect((await unseal(third.url, { key: recovery.keyShares[2] })).json).toMatchObject({ sealed: false, keyVersion: 1 });
      expect(await sign(third.url)).toBe(signed);
    },
  );
});

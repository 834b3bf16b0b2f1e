import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import type { RunningServer } from "../../src/server/start.js";
import { runCli, runCliAsync } from "../helpers/processes.js";
import { cliEnvOn, ethereumWallet, eventually, persistentStore, sealStatus, unsealedAtStart } from "../helpers/sealed-server.js";
import { keyAttributes, SOFTHSM_MODULE, softhsmDirectory, softhsmMissing, TOKEN_PIN } from "../helpers/softhsm.js";

interface Printed {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  recoveryShares: string[];
}

const TOKEN = "strongroom-test";
const env = {
  STRONGROOM_SEAL: "pkcs11",
  STRONGROOM_PKCS11_MODULE: SOFTHSM_MODULE,
  STRONGROOM_PKCS11_TOKEN_LABEL: TOKEN,
  STRONGROOM_PKCS11_PIN: TOKEN_PIN,
};

if (softhsmMissing) console.warn(`seal-pkcs11.test.ts: the SoftHSM2 cases are skipped: ${softhsmMissing}`);

describe("STRONGROOM_SEAL=pkcs11: its settings", () => {
  it("takes the token's module, label and PIN (or a PIN file), and names what is missing", () => {
    expect(resolveConfig({}, env).seal).toEqual({
      provider: "pkcs11",
      pollMs: 1000,
      pkcs11: { module: SOFTHSM_MODULE, tokenLabel: TOKEN, pin: TOKEN_PIN, keyLabel: "strongroom-root" },
    });
    expect(() => resolveConfig({}, { ...env, STRONGROOM_PKCS11_MODULE: "" })).toThrow(
      "STRONGROOM_SEAL=pkcs11 needs STRONGROOM_PKCS11_MODULE",
    );
    const { STRONGROOM_PKCS11_PIN: _pin, ...withoutPin } = env;
    expect(() => resolveConfig({}, withoutPin)).toThrow("STRONGROOM_SEAL=pkcs11 needs STRONGROOM_PKCS11_PIN");
    expect(() => resolveConfig({}, { ...env, STRONGROOM_PKCS11_PIN_FILE: "/nonexistent/pin" })).toThrow(
      "set STRONGROOM_PKCS11_PIN or STRONGROOM_PKCS11_PIN_FILE, not both",
    );
    expect(() => resolveConfig({}, { ...withoutPin, STRONGROOM_PKCS11_PIN_FILE: "/nonexistent/pin" })).toThrow(
      "STRONGROOM_PKCS11_PIN_FILE: cannot read /nonexistent/pin",
    );
    expect(resolveConfig({}, { ...env, STRONGROOM_PKCS11_KEY_LABEL: "other" }).seal.pkcs11?.keyLabel).toBe("other");
  });
});

/**
 * STRONGROOM_SEAL=pkcs11 against SoftHSM2, through the CLI and the HTTP API as an operator uses them: `init` creates
 * the keyring and the root key in the token; a server unseals from the token at each start; rotation adds a version
 * the token wraps; a wrong PIN is refused; a lost token is recovered with the recovery shares.
 */
describe.skipIf(softhsmMissing)(
  `STRONGROOM_SEAL=pkcs11 on a SoftHSM2 token (${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`,
  { timeout: 120_000 },
  () => {
    const hsm = softhsmMissing ? undefined : softhsmDirectory();
    const stores: { drop(): Promise<void> }[] = [];
    const servers: RunningServer[] = [];
    afterAll(async () => {
      for (const server of servers) await server.close();
      for (const store of stores) await store.drop();
      hsm?.drop();
    });

    it("keeps the root key in the token, unseals from it at each start, rotates under it, and recovers a lost token", async () => {
      hsm!.newToken(TOKEN);
      const store = await persistentStore();
      stores.push(store);
      const cliEnv = cliEnvOn(store, env);

      // init creates the keyring, and the root key in the token (which has none), with a recovery key.
      const init = runCli(["init", "--recovery-shares", "3", "--recovery-threshold", "2"], cliEnv);
      expect(init.status, init.stderr).toBe(0);
      const printed = JSON.parse(init.stdout) as Printed;
      expect(printed.recoveryShares).toHaveLength(3);
      expect(init.stdout + init.stderr).not.toContain(TOKEN_PIN);
      // The key is sensitive and not extractable: the token will not give its value to anyone.
      expect(keyAttributes(TOKEN, "strongroom-root")).toEqual({
        keys: 1,
        sensitive: true,
        extractable: false,
        readingValue: "CKR_ATTRIBUTE_SENSITIVE",
      });

      const first = await store.start(env);
      servers.push(first);
      expect(await sealStatus(first.url)).toEqual(unsealedAtStart("pkcs11"));
      const wallet = await ethereumWallet(first.url, printed, "in the token's keyring");
      expect(wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const sign = wallet.sign;
      const signed = await sign(first.url);

      // Rotation while serving: version 2 is wrapped by the token's key, the values move to it, version 1 is retired.
      const rotation = await runCliAsync(["keyring", "rotate", "--background"], cliEnv);
      expect(rotation.status, rotation.stderr).toBe(0);
      expect(JSON.parse(rotation.stdout)).toEqual({ version: 2, background: true });
      const keyring = () =>
        first.services.db.query<{ version: number; wrapped_by: string }>("SELECT version, wrapped_by FROM keyring ORDER BY version");
      await eventually(async () => (await keyring()).length === 1, "version 1 retired once its values moved to version 2");
      expect((await keyring()).map((r) => ({ ...r, version: Number(r.version) }))).toEqual([
        { version: 2, wrapped_by: `pkcs11:${TOKEN}/strongroom-root` },
      ]);
      expect(await sealStatus(first.url)).toMatchObject({ sealed: false, keyVersion: 2 });
      expect(await sign(first.url)).toBe(signed);
      await first.close();
      servers.pop();

      // A restart unwraps the keyring from the token: the same key signs.
      const second = await store.start(env);
      servers.push(second);
      expect(await sealStatus(second.url)).toMatchObject({ type: "pkcs11", sealed: false, keyVersion: 2 });
      expect(await sign(second.url)).toBe(signed);
      await second.close();
      servers.pop();

      let backup: string | undefined;
      if (!store.databaseUrl) {
        // A backup restores where the token is reachable: the restored keyring is unwrapped there before it takes the
        // directory's place, and nothing is installed beside it (a token without that key refuses it: below).
        backup = join(store.dataDir, "backup.tar.gz");
        const made = runCli(["backup", backup, "--data-dir", store.dataDir], cliEnv);
        expect(made.status, made.stderr).toBe(0);
        const restoredDir = join(store.dataDir, "restored");
        const restored = runCli(["restore", backup, "--data-dir", restoredDir], cliEnv);
        expect(restored.status, restored.stderr).toBe(0);
        expect(JSON.parse(restored.stdout)).toMatchObject({ dataDir: restoredDir, seal: "pkcs11" });
        expect(existsSync(join(restoredDir, "master.key"))).toBe(false);
      }

      // A wrong PIN: `strongroom serve` refuses to start, naming the setting and the token's answer, never the PIN.
      const wrongPin = "7391-0462";
      const refused = runCli(["serve", "--port", "0", "--auth-proxy-port", "0"], { ...cliEnv, STRONGROOM_PKCS11_PIN: wrongPin });
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(`STRONGROOM_PKCS11_PIN: the token "${TOKEN}" refused the PIN (CKR_PIN_INCORRECT)`);
      expect(refused.stdout + refused.stderr).not.toContain(wrongPin);
      expect(refused.stdout + refused.stderr).not.toContain(TOKEN_PIN);

      // The token is lost: a new one with the same label holds no key, and the store does not open...
      hsm!.newToken(TOKEN);
      await expect(store.start(env)).rejects.toThrow(`token "${TOKEN}" holds no AES key labelled "strongroom-root"`);
      if (backup) {
        const elsewhere = join(store.dataDir, "elsewhere");
        const refusedRestore = runCli(["restore", backup, "--data-dir", elsewhere], cliEnv);
        expect(refusedRestore.status).not.toBe(0);
        expect(refusedRestore.stderr).toContain(`token "${TOKEN}" holds no AES key labelled "strongroom-root"`);
        expect(existsSync(join(elsewhere, "pgdata"))).toBe(false);
      }
      // ...until two of the three recovery shares wrap the keyring anew, under a key created in the new token.
      const sharesFile = join(store.dataDir, "recovery-shares.json");
      writeFileSync(sharesFile, JSON.stringify([printed.recoveryShares[2], printed.recoveryShares[0]]), { mode: 0o600 });
      const recovered = runCli(["keyring", "recover", "--recovery-shares-file", sharesFile], cliEnv);
      expect(recovered.status, recovered.stderr).toBe(0);
      expect(JSON.parse(recovered.stdout)).toMatchObject({ recovered: [2], wrappedBy: `pkcs11:${TOKEN}/strongroom-root` });
      expect(keyAttributes(TOKEN, "strongroom-root")).toMatchObject({ keys: 1, sensitive: true, extractable: false });
      const third = await store.start(env);
      servers.push(third);
      expect(await sealStatus(third.url)).toMatchObject({ type: "pkcs11", sealed: false, keyVersion: 2 });
      expect(await sign(third.url)).toBe(signed);
    });
  },
);

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { awsKmsRootWrapper, kmsEncryptionContext } from "../../src/crypto/keyring/awskms-wrapper.js";
import type { RunningServer } from "../../src/server/start.js";
import { freePort, runCli, runCliAsync } from "../helpers/processes.js";
import { cliEnvOn, ethereumWallet, eventually, persistentStore, sealStatus, unsealedAtStart } from "../helpers/sealed-server.js";

interface Printed {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/**
 * Why the KMS cases cannot run here, or undefined: they need moto's `moto_server` (Python moto: a local server speaking
 * KMS's wire protocol, encryption contexts enforced) and the optional dependency @aws-sdk/client-kms.
 */
const kmsMissing = (() => {
  if (spawnSync("moto_server", ["--help"], { encoding: "utf8" }).status !== 0) return "moto_server (Python moto) is not installed";
  try {
    createRequire(import.meta.url).resolve("@aws-sdk/client-kms");
  } catch {
    return "the optional dependency @aws-sdk/client-kms is not installed";
  }
  return undefined;
})();
if (kmsMissing) console.warn(`seal-awskms.test.ts: the KMS cases are skipped: ${kmsMissing}`);

describe("STRONGROOM_SEAL=awskms: its settings", () => {
  it("takes the KMS key id, and names it when missing", () => {
    expect(resolveConfig({}, { STRONGROOM_SEAL: "awskms", STRONGROOM_AWSKMS_KEY_ID: "alias/strongroom" }).seal).toEqual({
      provider: "awskms",
      pollMs: 1000,
      awskms: { keyId: "alias/strongroom" },
    });
    expect(() => resolveConfig({}, { STRONGROOM_SEAL: "awskms" })).toThrow("STRONGROOM_SEAL=awskms needs STRONGROOM_AWSKMS_KEY_ID");
  });
});

/**
 * STRONGROOM_SEAL=awskms through the real AWS SDK against moto_server on loopback: `init` wraps the keyring with the
 * KMS key, each server start unwraps it, and KMS enforces the encryption context naming the version.
 */
describe.skipIf(kmsMissing)(
  `STRONGROOM_SEAL=awskms against a local KMS-compatible server (moto; ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`,
  { timeout: 120_000 },
  () => {
    let moto: ChildProcess | undefined;
    const restore: (() => void)[] = [];
    const stores: { drop(): Promise<void> }[] = [];
    const servers: RunningServer[] = [];
    afterAll(async () => {
      for (const server of servers) await server.close();
      for (const store of stores) await store.drop();
      for (const undo of restore.reverse()) undo();
      moto?.kill();
    });

    /** moto_server on a free loopback port; the AWS SDK's settings (this process's, and the CLI's) point at it. */
    async function startMoto(): Promise<void> {
      const port = await freePort();
      moto = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
      const endpoint = `http://127.0.0.1:${port}`;
      await eventually(
        async () =>
          (await fetch(`${endpoint}/moto-api/`).then(
            (r) => r.ok,
            () => false,
          )) === true,
        "moto_server answers",
      );
      const aws = { AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test", AWS_ENDPOINT_URL_KMS: endpoint };
      for (const [name, value] of Object.entries(aws)) {
        const before = process.env[name];
        process.env[name] = value;
        restore.push(() => (before === undefined ? delete process.env[name] : (process.env[name] = before)));
      }
    }

    it("wraps the keyring with the KMS key under the version's encryption context, and unwraps it at each start", async () => {
      await startMoto();
      const { KMSClient, CreateKeyCommand, DecryptCommand } = await import("@aws-sdk/client-kms");
      const kms = new KMSClient({});
      const createKey = async () => (await kms.send(new CreateKeyCommand({ Description: "strongroom test" }))).KeyMetadata!.KeyId!;
      const keyId = await createKey();
      const otherKeyId = await createKey();
      const env = { STRONGROOM_SEAL: "awskms", STRONGROOM_AWSKMS_KEY_ID: keyId };

      const store = await persistentStore();
      stores.push(store);
      const cliEnv = cliEnvOn(store, env);
      const init = runCli(["init"], cliEnv);
      expect(init.status, init.stderr).toBe(0);
      const printed = JSON.parse(init.stdout) as Printed;

      const first = await store.start(env);
      servers.push(first);
      expect(await sealStatus(first.url)).toEqual(unsealedAtStart("awskms"));
      const wallet = await ethereumWallet(first.url, printed, "under KMS");
      const sign = wallet.sign;
      const signed = await sign(first.url);
      const [row] = await first.services.db.query<{ wrapped_key: string; wrapped_by: string }>(
        "SELECT wrapped_key, wrapped_by FROM keyring WHERE version = 1",
      );
      expect(row!.wrapped_by).toBe(`awskms:${keyId}`);
      await first.close();
      servers.pop();

      // KMS itself holds the binding: the wrapped key opens under version 1's context, and not as another version.
      const blob = Buffer.from(row!.wrapped_key, "base64");
      const opened = await kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: kmsEncryptionContext(1) }));
      expect(opened.Plaintext).toHaveLength(32);
      await expect(kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: kmsEncryptionContext(2) }))).rejects.toThrow();
      const wrapper = await awsKmsRootWrapper({ keyId });
      try {
        await expect(wrapper.unwrap(row!.wrapped_key, 2)).rejects.toThrow(`key version 2 could not be opened by AWS KMS key ${keyId}`);
        expect(Buffer.from(await wrapper.unwrap(row!.wrapped_key, 1))).toEqual(Buffer.from(opened.Plaintext!));
      } finally {
        await wrapper.close();
      }

      // Each start unwraps the keyring through KMS: the same key signs.
      const second = await store.start(env);
      servers.push(second);
      expect(await sealStatus(second.url)).toMatchObject({ type: "awskms", sealed: false, keyVersion: 1 });
      expect(await sign(second.url)).toBe(signed);
      await second.close();
      servers.pop();

      // Another KMS key does not open it: the start fails, naming the key.
      await expect(store.start({ ...env, STRONGROOM_AWSKMS_KEY_ID: otherKeyId })).rejects.toThrow(
        `key version 1 could not be opened by AWS KMS key ${otherKeyId}`,
      );
      kms.destroy();
    });

    // No network I/O inside a database transaction: every call to KMS is made while none of the store's sessions is
    // in a transaction (PostgreSQL shows them all in pg_stat_activity; the embedded store runs in the calling process).
    it.skipIf(!process.env.DATABASE_URL)("calls KMS while the store has no transaction open (init, start, rotation)", async () => {
      if (!moto) await startMoto();
      const { KMSClient, CreateKeyCommand } = await import("@aws-sdk/client-kms");
      const kms = new KMSClient({});
      const keyId = (await kms.send(new CreateKeyCommand({ Description: "strongroom test" }))).KeyMetadata!.KeyId!;
      kms.destroy();
      const store = await persistentStore();
      stores.push(store);
      const observer = new pg.Client({ connectionString: store.databaseUrl });
      await observer.connect();
      const calls: { target: string; inTransaction: number }[] = [];
      const kmsEndpoint = process.env.AWS_ENDPOINT_URL_KMS!;
      const proxy = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          void (async () => {
            const [{ n }] = (
              await observer.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
              )
            ).rows as [{ n: number }];
            calls.push({ target: String(request.headers["x-amz-target"]), inTransaction: n });
            const headers = Object.fromEntries(
              Object.entries(request.headers).filter(([name]) => !["host", "content-length", "connection"].includes(name)),
            ) as Record<string, string>;
            const answer = await fetch(`${kmsEndpoint}${request.url}`, { method: request.method, headers, body: Buffer.concat(chunks) });
            response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/x-amz-json-1.1" });
            response.end(Buffer.from(await answer.arrayBuffer()));
          })();
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      try {
        const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        const env = { STRONGROOM_SEAL: "awskms", STRONGROOM_AWSKMS_KEY_ID: keyId, AWS_ENDPOINT_URL_KMS: endpoint };
        // Run asynchronously: this process answers as the KMS meanwhile.
        const init = await runCliAsync(["init"], cliEnvOn(store, env));
        expect(init.status, init.stderr).toBe(0);
        const rotate = await runCliAsync(["keyring", "rotate", "--background"], cliEnvOn(store, env));
        expect(rotate.status, rotate.stderr).toBe(0);
        const before = process.env.AWS_ENDPOINT_URL_KMS;
        process.env.AWS_ENDPOINT_URL_KMS = endpoint;
        try {
          const server = await store.start(env);
          await server.close();
        } finally {
          process.env.AWS_ENDPOINT_URL_KMS = before;
        }
        expect(calls.filter((call) => call.target.endsWith("Encrypt")).length).toBe(2); // versions 1 and 2
        expect(calls.filter((call) => call.target.endsWith("Decrypt")).length).toBeGreaterThanOrEqual(2);
        expect(calls.filter((call) => call.inTransaction > 0)).toEqual([]);
      } finally {
        proxy.close();
        await observer.end();
      }
    });
  },
);

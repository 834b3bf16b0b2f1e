import { generateP256KeyPair } from "@turnkey/crypto";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../src/store/migrations.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const packageVersion = (JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string }).version;

type LogLine = Record<string, unknown> & { level: number; msg: string };

describe("logs and metrics", () => {
  let server: TestServer;
  const lines: string[] = [];
  const logs = () =>
    lines
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);
  const walletName = `observed-${randomUUID()}`;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server = await startTestServer({ env: { METRICS_PORT: "0", LOG_LEVEL: "info" }, logStream: stream });
  });
  let closed = false;
  afterAll(async () => {
    if (!closed) await server?.close();
  });

  it("logs the version, store, schema version, migrations and addresses at start", () => {
    const start = logs().find((line) => line.msg.startsWith("Strongroom "));
    expect(start).toMatchObject({ version: packageVersion, api: server.url, authProxy: server.authProxyUrl, metrics: server.metricsUrl });
    expect(start!.store).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
    expect(start!.schemaVersion).toBe(migrations.at(-1)!.version);
    // A fresh PostgreSQL database is migrated at start; a store in memory starts from a migrated template
    // (src/store/pglite-template.ts), leaving nothing to apply.
    expect(start!.migrationsApplied).toEqual(process.env.DATABASE_URL ? migrations.map((m) => m.version) : []);
    if (process.env.DATABASE_URL) expect(start!.schema).toBe("strongroom");
  });

  it("logs each activity with organization, type, id, status and duration — a FAILED one as a warning, never its parameters", async () => {
    const created = await server.client().createWallet({ walletName, accounts: [] });
    const failed = await server.client().createWallet({ walletName, accounts: [] }); // the name is taken: FAILED
    expect(failed.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    const byId = (id: string) => logs().find((line) => line.activityId === id);
    expect(byId(created.activity.id)).toMatchObject({
      level: 30,
      msg: "activity COMPLETED",
      organizationId: server.root.organizationId,
      activityType: "ACTIVITY_TYPE_CREATE_WALLET",
      status: "COMPLETED",
      durationMs: expect.any(Number),
    });
    expect(byId(failed.activity.id)).toMatchObject({
      level: 40,
      msg: "activity FAILED",
      status: "FAILED",
      failureCode: expect.any(Number),
    });
    expect(lines.join("")).not.toContain(walletName);
  });

  it("counts latency per operation, activities by status, policy denials and the webhook queue on the metrics port only", async () => {
    const outsider = generateP256KeyPair();
    await server.client().createUsers({
      users: [
        {
          userName: "no policies",
          apiKeys: [{ apiKeyName: "k", publicKey: outsider.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const denied = await refusal(
      server
        .client({ apiPublicKey: outsider.publicKey, apiPrivateKey: outsider.privateKey })
        .createWallet({ walletName: "x", accounts: [] }),
    );
    expect(denied.code).toBe(7); // PERMISSION_DENIED
    expect(logs().find((line) => line.msg === "activity refused" && line.policyDenied === true)).toMatchObject({ httpStatus: 403 });
    await server.client().getWallets({});

    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    const scrape = await fetch(server.metricsUrl!);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    for (const name of [
      "strongroom_http_request_duration_seconds",
      "strongroom_operation_duration_seconds",
      "strongroom_activities_total",
      "strongroom_activity_refusals_total",
      "strongroom_policy_denials_total",
      "strongroom_consensus_wait_seconds",
      "strongroom_webhook_queue_depth",
      "strongroom_webhook_delivery_attempts_total",
      "strongroom_process_resident_memory_bytes",
      "strongroom_nodejs_eventloop_lag_seconds",
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/strongroom_operation_duration_seconds_count\{operation="create_wallet",kind="submit",status="200"\} [1-9]/);
    expect(text).toMatch(/strongroom_operation_duration_seconds_count\{operation="list_wallets",kind="query",status="200"\} [1-9]/);
    expect(text).toContain('strongroom_activities_total{type="ACTIVITY_TYPE_CREATE_WALLET",status="COMPLETED"} 1');
    expect(text).toContain('strongroom_activities_total{type="ACTIVITY_TYPE_CREATE_WALLET",status="FAILED"} 1');
    expect(text).toContain('strongroom_policy_denials_total{type="ACTIVITY_TYPE_CREATE_WALLET"} 1');
    expect(text).toMatch(/strongroom_webhook_queue_depth 0/);
  });

  it("answers only /metrics on the metrics port", async () => {
    expect((await fetch(server.metricsUrl!.replace(/\/metrics$/, "/health"))).status).toBe(404);
  });

  it("logs a line when it has stopped", async () => {
    closed = true;
    await server.close();
    expect(logs().at(-1)).toMatchObject({ msg: `Strongroom ${packageVersion} stopped`, uptimeSeconds: expect.any(Number) });
  });
});

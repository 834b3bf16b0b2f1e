import { chmodSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { initRootOrganization, type InitOptions, type InitResult } from "../domains/organizations/init-root-organization.js";
import type { Services } from "../services.js";
import { exportLog, type ExportRecord } from "../audit/export.js";
import { integrationSettings } from "../audit/integrator.js";
import { addKeyVersion, ROTATION_GRACE_POLLS } from "../crypto/keyring/keyring-rows.js";
import { keyringReport, type KeyringReport } from "../crypto/keyring/keyring-report.js";
import type { KeyringInitOptions, KeyringShares } from "../crypto/keyring/custody.js";

/**
 * The embedded store belongs to one process, so `strongroom init` and `strongroom backup` cannot open it while a
 * server runs. The server therefore listens on a Unix socket in its data directory (mode 0600, in a 0700
 * directory): whoever may open it may already read the store's files and its key, and nobody else can reach it.
 * Requests served, over HTTP: POST /init (the options of `strongroom init`, answered with what `init` prints),
 * POST /backup (the store's consistent snapshot, a gzipped tar), POST /audit-export (the audit log, as
 * `strongroom audit export` writes it: one JSON record a line), and POST /keyring/rotate and /keyring/status
 * (`strongroom keyring rotate` and `status`).
 */
export const controlSocketPath = (dataDir: string): string => join(dataDir, "control.sock");

const MAX_BODY_BYTES = 16 * 1024;
/** sun_path holds 108 bytes on Linux (104 on macOS): a longer path cannot be a socket. */
const MAX_SOCKET_PATH = 100;

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

export type InitRequest = InitOptions & { ifEmpty?: boolean; keyring?: KeyringInitOptions };

/**
 * What `init` does once the store is open: the keyring's shares first (Shamir: the keyring itself; any provider: a
 * recovery key), then the root organization. Answers both, the shares to be printed this once.
 */
export async function initKeyringAndRoot(services: Services, options: InitRequest): Promise<InitResult & KeyringShares> {
  const { keyring, ifEmpty: _ifEmpty, ...root } = options;
  const shares = keyring && (keyring.keyShares || keyring.recovery) ? await services.custody.initialize(keyring) : {};
  return { ...(await initRootOrganization(services, root)), ...shares };
}

const sharing = (value: unknown, name: string): { shares: number; threshold: number } | undefined => {
  if (value === undefined) return undefined;
  const { shares, threshold } = (value ?? {}) as Record<string, unknown>;
  if (typeof shares !== "number" || typeof threshold !== "number") throw new Error(`${name} must be {shares, threshold}`);
  return { shares, threshold };
};

async function readBody(message: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) throw new Error(`the message is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function initOptions(body: string): InitRequest {
  const parsed = JSON.parse(body || "{}") as Record<string, unknown>;
  const options: InitRequest = parsed.ifEmpty === true ? { ifEmpty: true } : {};
  for (const key of ["organizationName", "userName", "userEmail", "apiPublicKey"] as const) {
    const value = parsed[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new Error(`${key} must be a string`);
    options[key] = value;
  }
  const keyring = (parsed.keyring ?? {}) as Record<string, unknown>;
  const keyShares = sharing(keyring.keyShares, "keyring.keyShares");
  const recovery = sharing(keyring.recovery, "keyring.recovery");
  options.keyring = { ...(keyShares ? { keyShares } : {}), ...(recovery ? { recovery } : {}) };
  return options;
}

function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function init(services: Services, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const options = initOptions((await readBody(req)).toString("utf8"));
    if (options.ifEmpty && (await services.db.query("SELECT 1 FROM organizations LIMIT 1")).length > 0)
      return answerJson(res, 200, { skipped: true });
    answerJson(res, 200, await initKeyringAndRoot(services, options));
  } catch (error) {
    answerJson(res, 400, { message: (error as Error).message });
  }
}

async function backup(services: Services, log: FastifyBaseLogger, res: ServerResponse): Promise<void> {
  const started = Date.now();
  try {
    const archive = await services.db.snapshot!();
    log.info({ bytes: archive.length, ms: Date.now() - started }, "online backup taken");
    res.writeHead(200, { "content-type": "application/gzip", "content-length": archive.length }).end(archive);
  } catch (error) {
    log.error({ err: error }, "online backup failed");
    answerJson(res, 500, { message: `the backup failed: ${(error as Error).message}` });
  }
}

async function auditExport(services: Services, log: FastifyBaseLogger, res: ServerResponse): Promise<void> {
  try {
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    for await (const record of exportLog(services.db, services.audit.keys, integrationSettings(services.audit.settings)))
      if (!res.write(JSON.stringify(record) + "\n")) await new Promise((resolve) => res.once("drain", resolve));
    res.end();
  } catch (error) {
    log.error({ err: error }, "audit log export failed");
    res.destroy(error as Error);
  }
}

export interface ControlSocketOptions {
  /** STRONGROOM_KEYRING_POLL_MS: a rotation's grace is five of them (src/crypto/keyring/keyring-rows.ts). */
  keyringPollMs: number;
  /** A version was added: the keyring worker starts moving values to it. */
  rotated(): void;
}

/** Adds a keyring version (`strongroom keyring rotate` while this server holds the store); the keyring worker moves the values. */
async function rotate(services: Services, options: ControlSocketOptions, res: ServerResponse): Promise<void> {
  try {
    const wrapper = services.custody.wrapper;
    if (!wrapper) throw new Error("the server is sealed: unseal it before rotating its keyring");
    const version = await addKeyVersion(services.db, wrapper, ROTATION_GRACE_POLLS * options.keyringPollMs);
    options.rotated();
    answerJson(res, 200, { version });
  } catch (error) {
    answerJson(res, 400, { message: (error as Error).message });
  }
}

async function keyringStatus(services: Services, res: ServerResponse): Promise<void> {
  try {
    answerJson(res, 200, { ...(await keyringReport(services.db)), seal: services.custody.status() });
  } catch (error) {
    answerJson(res, 500, { message: (error as Error).message });
  }
}

/**
 * Serves the control socket of a server on an embedded store in a directory (one that can take snapshots);
 * undefined for other stores, or, after a warning, when the path is too long for a socket. A socket file left
 * by a process that died is replaced: this process holds the data directory's lock, so no live server owns it.
 */
export async function serveControlSocket(
  services: Services,
  dataDir: string,
  log: FastifyBaseLogger,
  options: ControlSocketOptions,
): Promise<ControlSocket | undefined> {
  if (!services.db.snapshot) return undefined;
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn(
      { path },
      "the data directory's path is too long for a control socket: `strongroom init` and `backup` need the server stopped",
    );
    return undefined;
  }
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/init") return void init(services, req, res);
    if (req.method === "POST" && req.url === "/backup") return void backup(services, log, res);
    if (req.method === "POST" && req.url === "/audit-export") return void auditExport(services, log, res);
    if (req.method === "POST" && req.url === "/keyring/rotate") return void rotate(services, options, res);
    if (req.method === "POST" && req.url === "/keyring/status") return void keyringStatus(services, res);
    answerJson(res, 404, {
      message: "the control socket answers POST /init, /backup, /audit-export, /keyring/rotate and /keyring/status only",
    });
  });
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          rmSync(path, { force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** Errors of a socket nobody serves: no server runs, or one died and left its socket file. */
const NOBODY_LISTENS = ["ENOENT", "ECONNREFUSED", "ENOTSOCK", "ENAMETOOLONG", "EINVAL"];

/** One request to the control socket at `path`; undefined when nobody listens there. */
function ask(path: string, route: string, body: string): Promise<{ status: number; body: Buffer } | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, path: route, method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      readBody(res, Number.MAX_SAFE_INTEGER).then((bytes) => resolve({ status: res.statusCode ?? 0, body: bytes }), reject);
    });
    req.once("error", (error: NodeJS.ErrnoException) => {
      if (NOBODY_LISTENS.includes(error.code ?? "")) resolve(undefined);
      else reject(error);
    });
    req.end(body);
  });
}

const messageOf = (body: Buffer, status: number) => {
  try {
    return (JSON.parse(body.toString("utf8")) as { message?: string }).message ?? `the server answered ${status}`;
  } catch {
    return `the server answered ${status}`;
  }
};

/** `strongroom init` through a running server's control socket: undefined when `ifEmpty` found an organization. */
export async function initThroughControlSocket(path: string, options: InitRequest): Promise<(InitResult & KeyringShares) | undefined> {
  const answer = await ask(path, "/init", JSON.stringify(options));
  if (!answer)
    throw new Error(`could not reach the server holding the data directory through ${path}; stop it and run \`strongroom init\` again`);
  if (answer.status !== 200) throw new Error(messageOf(answer.body, answer.status));
  const result = JSON.parse(answer.body.toString("utf8")) as InitResult & KeyringShares & { skipped?: boolean };
  return result.skipped ? undefined : result;
}

/**
 * The backup of the server running on `dataDir`, taken by that server; undefined when no server answers there
 * (the caller then takes the backup itself, with the data directory's lock).
 */
export async function backupThroughControlSocket(dataDir: string): Promise<Uint8Array | undefined> {
  const answer = await ask(controlSocketPath(dataDir), "/backup", "").catch((error: Error) => {
    throw new Error(`the server running on ${dataDir} did not finish the backup: ${error.message}`);
  });
  if (!answer) return undefined;
  if (answer.status !== 200)
    throw new Error(`the server running on ${dataDir} refused the backup: ${messageOf(answer.body, answer.status)}`);
  return new Uint8Array(answer.body);
}

/**
 * The audit log of the server running on `dataDir`, exported by that server, one record at a time; undefined when
 * no server answers there (the caller then reads the store itself).
 */
export async function auditExportThroughControlSocket(dataDir: string): Promise<AsyncIterable<ExportRecord> | undefined> {
  const path = controlSocketPath(dataDir);
  const response = await new Promise<IncomingMessage | undefined>((resolve, reject) => {
    const req = request({ socketPath: path, path: "/audit-export", method: "POST" }, resolve);
    req.once("error", (error: NodeJS.ErrnoException) => {
      if (NOBODY_LISTENS.includes(error.code ?? "")) resolve(undefined);
      else reject(error);
    });
    req.end();
  });
  if (!response) return undefined;
  if (response.statusCode !== 200)
    throw new Error(
      `the server running on ${dataDir} refused the export: ${messageOf(await readBody(response), response.statusCode ?? 0)}`,
    );
  response.setEncoding("utf8");
  return (async function* () {
    let buffered = "";
    for await (const chunk of response as AsyncIterable<string>) {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        yield JSON.parse(buffered.slice(0, newline)) as ExportRecord;
        buffered = buffered.slice(newline + 1);
      }
    }
    if (buffered) throw new Error(`the server running on ${dataDir} stopped in the middle of the export`);
  })();
}

/** A request of `strongroom keyring` to the server running on `dataDir`; undefined when no server answers there. */
export async function keyringThroughControlSocket(dataDir: string, what: "rotate"): Promise<{ version: number } | undefined>;
export async function keyringThroughControlSocket(dataDir: string, what: "status"): Promise<KeyringReport | undefined>;
export async function keyringThroughControlSocket(dataDir: string, what: "rotate" | "status"): Promise<unknown> {
  const answer = await ask(controlSocketPath(dataDir), `/keyring/${what}`, "");
  if (!answer) return undefined;
  if (answer.status !== 200) throw new Error(`the server running on ${dataDir}: ${messageOf(answer.body, answer.status)}`);
  return JSON.parse(answer.body.toString("utf8")) as unknown;
}

import { chmodSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { initRootOrganization, type InitOptions, type InitResult } from "../domains/organizations/init-root-organization.js";
import type { Services } from "../services.js";

/**
 * The embedded store belongs to one process, so `strongroom init` cannot open it while a server runs. The
 * server therefore listens on a Unix socket in its data directory (mode 0600, in a 0700 directory): whoever
 * may read the data directory — its key file included — may already do anything, and nobody else can reach it.
 * One request is served: POST /init, the options of `strongroom init`, answered with what `init` prints.
 */
export const CONTROL_SOCKET = "control.sock";
const MAX_BODY_BYTES = 16 * 1024;
/** sun_path holds 108 bytes on Linux (104 on macOS): a longer path cannot be a socket. */
const MAX_SOCKET_PATH = 100;

export const controlSocketPath = (dataDir: string) => join(dataDir, CONTROL_SOCKET);

export interface ControlSocket {
  path: string;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request as AsyncIterable<Buffer>) {
    body += chunk.toString("utf8");
    if (body.length > MAX_BODY_BYTES) throw new Error(`the request is larger than ${MAX_BODY_BYTES} bytes`);
  }
  return body;
}

function initOptions(body: string): InitOptions & { ifEmpty?: boolean } {
  const parsed = JSON.parse(body || "{}") as Record<string, unknown>;
  const options: InitOptions & { ifEmpty?: boolean } = parsed.ifEmpty === true ? { ifEmpty: true } : {};
  for (const key of ["organizationName", "userName", "userEmail", "apiPublicKey"] as const) {
    const value = parsed[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new Error(`${key} must be a string`);
    options[key] = value;
  }
  return options;
}

/**
 * Serves the control socket of a server on the embedded store. A socket file left by a process that died is
 * replaced (this process holds the data directory's lock, so no live server owns it). Answers undefined, after
 * `warn`, when the path is too long for a socket.
 */
export async function serveControlSocket(
  services: Services,
  dataDir: string,
  warn: (message: string) => void,
): Promise<ControlSocket | undefined> {
  const path = controlSocketPath(dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    warn(
      `the data directory's path is too long for a control socket (${path}): \`strongroom init\` works only while the server is stopped`,
    );
    return undefined;
  }
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/init") return answer(404, { message: "the control socket answers POST /init only" });
    readBody(req)
      .then(async (body) => {
        const options = initOptions(body);
        if (options.ifEmpty && (await services.db.query("SELECT 1 FROM organizations LIMIT 1")).length > 0) return { skipped: true };
        return initRootOrganization(services, options);
      })
      .then(
        (result) => answer(200, result),
        (error: unknown) => answer(400, { message: (error as Error).message }),
      );
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
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `strongroom init` through a running server's control socket: undefined when `ifEmpty` found an organization. */
export async function initThroughControlSocket(
  path: string,
  options: InitOptions & { ifEmpty?: boolean },
): Promise<InitResult | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, path: "/init", method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      readBody(res).then((text) => {
        const body = JSON.parse(text) as InitResult & { message?: string; skipped?: boolean };
        if (res.statusCode === 200) resolve(body.skipped ? undefined : body);
        else reject(new Error(body.message ?? `the server answered ${res.statusCode}`));
      }, reject);
    });
    req.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `could not reach the server holding the data directory through ${path} (${error.code ?? error.message}); ` +
            "stop it and run `strongroom init` again",
        ),
      ),
    );
    req.end(JSON.stringify(options));
  });
}

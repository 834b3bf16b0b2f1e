import react from "@vitejs/plugin-react";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { chromium, type BrowserContext, type CDPSession, type Page } from "playwright-core";
import { build } from "vite";
import { strongroomSigner } from "../../src/bundler/vite-plugin.js";
import type { StrongroomKeys } from "../../src/bundler/pinned-keys.js";
import type { AppConfig } from "./app/app-config.js";

/** Debian's Chromium; without it the browser suite is skipped (a plain `npm test` still passes). */
export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

const ROOT = resolve(import.meta.dirname, "../..");
const APP_DIR = join(ROOT, "test/browser/app");
const CACHE_DIR = join(ROOT, "node_modules/.cache/strongroom-browser-app");

/** Everything a build depends on: the app's sources, the plugin, the lockfile and the keys it pins. */
function buildKey(keys: StrongroomKeys): string {
  const hash = createHash("sha256");
  for (const dir of [APP_DIR, join(ROOT, "src/bundler")]) {
    for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  }
  hash.update(readFileSync(join(ROOT, "package-lock.json")));
  hash.update(JSON.stringify(keys));
  return hash.digest("hex").slice(0, 16);
}

/**
 * The test app built with Vite and Strongroom's plugin pointed at the server's keys. Builds are cached by content,
 * so a second run with the same server keys (and unchanged sources) reuses the bundle.
 */
export async function buildTestApp(serverUrl: string): Promise<string> {
  const keys = (await (await fetch(`${serverUrl}/public/v1/discovery/keys`)).json()) as StrongroomKeys;
  const outDir = join(CACHE_DIR, buildKey(keys));
  if (existsSync(join(outDir, "index.html"))) return outDir;
  await pruneOldBuilds();
  await build({
    root: APP_DIR,
    configFile: false,
    logLevel: "warn",
    plugins: [react(), strongroomSigner({ serverUrl })],
    build: {
      outDir,
      emptyOutDir: true,
      target: "es2022",
      minify: false,
      sourcemap: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: { index: join(APP_DIR, "index.html"), sdk: join(APP_DIR, "sdk.html"), oauth: join(APP_DIR, "oauth-callback.html") },
        // Evaluate modules in import order across chunks: tsyringe needs reflect-metadata loaded first.
        output: { strictExecutionOrder: true },
      },
    },
  });
  return outDir;
}

/** Each test server has its own keys, so builds pile up: those older than an hour go (parallel files keep theirs). */
async function pruneOldBuilds(): Promise<void> {
  if (!existsSync(CACHE_DIR)) return;
  const hourAgo = Date.now() - 3_600_000;
  for (const name of await readdir(CACHE_DIR)) {
    const dir = join(CACHE_DIR, name);
    if ((await stat(dir)).mtimeMs < hourAgo) await rm(dir, { recursive: true, force: true });
  }
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
};

export interface StaticSite {
  /** http://localhost:PORT — a host name, not an IP address: WebAuthn refuses IP addresses as relying party IDs. */
  origin: string;
  close(): Promise<void>;
}

/** Serves the built app on loopback, and the app's configuration at /config.json. */
export async function serveApp(dir: string, config: () => AppConfig): Promise<StaticSite> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path === "/config.json") {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(config()));
      return;
    }
    const file = normalize(join(dir, path === "/" ? "index.html" : path));
    if (!file.startsWith(dir)) return void response.writeHead(403).end();
    readFile(file).then(
      (body) => response.writeHead(200, { "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream" }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile; `localhost` resolves only to 127.0.0.1 (nothing leaves loopback). */
export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "strongroom-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 900, height: 700 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP localhost 127.0.0.1",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Chromium's virtual WebAuthn authenticator on a page: a platform passkey with resident keys and user verification. */
export async function addVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * Screenshots of the main steps for the guide's "Browser apps" (docs/guide.md), written to docs/browser/ only with
 * UPDATE_SCREENSHOTS=1 (so that an ordinary test run leaves the tree unchanged).
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS === "1") await page.screenshot({ path: join(ROOT, "docs/browser", `${name}.png`) });
}

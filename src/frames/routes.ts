import type { FastifyInstance, FastifyReply } from "fastify";
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { builtPath } from "../package-root.js";

/**
 * Strongroom's own export and import pages, for the `exportIframeUrl` / `importIframeUrl` of the wallet kit (and
 * @turnkey/iframe-stamper): /frames/export and /frames/import. They trust this server's signer key, which the page
 * carries, and load only their own script and stylesheet. The scripts are bundled from src/frames/browser by
 * `npm run build` into dist/browser-frames/.
 */
const BUNDLE_DIR = pathToFileURL(builtPath("browser-frames") + "/");

const PAGES = {
  export: { title: "Strongroom export", body: '<pre id="secret" hidden></pre>' },
  import: {
    title: "Strongroom import",
    body: '<textarea id="secret" autocomplete="off" autocorrect="off" autocapitalize="off" spellcheck="false" aria-label="Seed phrase or private key"></textarea>',
  },
} as const;

const STYLESHEET = `html, body { margin: 0; padding: 0; height: 100%; background: transparent; }
#secret { box-sizing: border-box; width: 100%; margin: 0; font: 14px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; border: none; outline: none; resize: none; background: transparent; }
textarea#secret { height: 100%; min-height: 6em; }`;

export interface FrameOptions {
  /** Read at each request: a sealed server learns it only at its unseal. */
  signerPublicKey: () => string;
  /** FRAME_ANCESTORS: the origins allowed to embed the pages (Content-Security-Policy frame-ancestors). */
  frameAncestors: string[];
}

export function registerFrameRoutes(app: FastifyInstance, options: FrameOptions): void {
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${options.frameAncestors.join(" ")}`,
  ].join("; ");
  const secure = (reply: FastifyReply, contentType: string) =>
    reply
      .header("content-type", contentType)
      .header("content-security-policy", policy)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "no-store");

  for (const [name, page] of Object.entries(PAGES)) {
    const html = (signerPublicKey: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="strongroom-signer-public-key" content="${signerPublicKey}">
<title>${page.title}</title>
<link rel="stylesheet" href="frame.css">
<script type="module" src="${name}.js"></script>
</head>
<body>${page.body}</body>
</html>
`;
    app.get(`/frames/${name}`, async (_request, reply) => secure(reply, "text/html; charset=utf-8").send(html(options.signerPublicKey())));

    let script: Promise<string> | undefined;
    app.get(`/frames/${name}.js`, async (_request, reply) => {
      script ??= readFile(new URL(`${name}.js`, BUNDLE_DIR), "utf8");
      let source: string;
      try {
        source = await script;
      } catch {
        script = undefined;
        return reply
          .status(503)
          .header("content-type", "text/plain; charset=utf-8")
          .send(`The ${name} frame's script is not built: run \`npm run build\` (it bundles src/frames/browser into dist/browser-frames).`);
      }
      return secure(reply, "text/javascript; charset=utf-8").send(source);
    });
  }
  app.get("/frames/frame.css", async (_request, reply) => secure(reply, "text/css; charset=utf-8").send(STYLESHEET));
}

import type { FastifyInstance, FastifyReply } from "fastify";
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import { builtPath } from "../package-root.js";

/**
 * The console (console/, built into dist/console/ by `npm run build`) at /console: static files only. It is a client
 * of the public API on this same origin, so its policy allows scripts, styles, images and requests to 'self' only.
 */
const CONSOLE_DIR = pathToFileURL(builtPath("console") + "/");

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** An asset's file name as Vite emits it: no directories, nothing but name characters. */
const ASSET_NAME = /^[\w.-]+$/;

export function registerConsoleRoutes(app: FastifyInstance): void {
  const send = async (reply: FastifyReply, file: string, cache: string) => {
    let body: Buffer;
    try {
      body = await readFile(new URL(file, CONSOLE_DIR));
    } catch {
      return reply
        .status(file === "index.html" ? 503 : 404)
        .header("content-type", "text/plain; charset=utf-8")
        .send(
          file === "index.html" ? "The console is not built: run `npm run build` (it builds console/ into dist/console)." : "not found",
        );
    }
    return reply
      .header("content-type", CONTENT_TYPES[extname(file)] ?? "application/octet-stream")
      .header("content-security-policy", POLICY)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cache-control", cache)
      .send(body);
  };

  // The server's root leads a browser to the console.
  app.get("/", async (_request, reply) => reply.redirect("/console/"));
  app.get("/console", async (_request, reply) => reply.redirect("/console/"));
  app.get("/console/", async (_request, reply) => send(reply, "index.html", "no-cache"));
  app.get<{ Params: { name: string } }>("/console/assets/:name", async (request, reply) => {
    const { name } = request.params;
    if (!ASSET_NAME.test(name) || name.startsWith(".")) return reply.status(404).send("not found");
    // Vite names assets by content hash: they never change under one name.
    return send(reply, `assets/${name}`, "public, max-age=31536000, immutable");
  });
}

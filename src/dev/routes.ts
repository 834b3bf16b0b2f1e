import type { FastifyInstance, FastifyRequest } from "fastify";
import ipaddr from "ipaddr.js";
import { invalidArgument, permissionDenied } from "../errors.js";
import type { DevClock } from "./clock.js";
import type { Inbox } from "./inbox.js";

export interface DevControls {
  inbox: Inbox;
  clock: DevClock;
  reset(): Promise<void>;
  /** Host names accepted besides the loopback names (STRONGROOM_DEV_ALLOWED_HOSTS), lower case, without a port. */
  allowedHosts?: string[];
}

/**
 * Every request to the controls must carry this header. A web page on another origin can send a custom header
 * only after a CORS preflight, which /dev/ never answers, so no page can drive the controls.
 */
export const DEV_CONTROLS_HEADER = "X-Strongroom-Dev";

/** The host name of a Host header value, without its port, lower case (IPv6 literals keep their brackets). */
function hostNameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(host.trim());
  return match ? match[1]!.toLowerCase() : undefined;
}

/** localhost, *.localhost, 127.0.0.0/8 (four-part decimal, as browsers write it) and [::1]. */
export function isLoopbackHostName(name: string): boolean {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name.startsWith("[") && name.endsWith("]")) {
    const literal = name.slice(1, -1);
    return ipaddr.IPv6.isValid(literal) && ipaddr.process(literal).range() === "loopback";
  }
  return ipaddr.IPv4.isValidFourPartDecimal(name) && ipaddr.IPv4.parse(name).range() === "loopback";
}

/**
 * The controls have no authentication, so they answer only local tools: a request whose Host is not a loopback
 * name (nor one the operator allowed) came from a page that reached the server under its own name (DNS
 * rebinding), and one without the header is a page's simple request (or a tool that must add it).
 */
function onlyLocalTools(allowedHosts: ReadonlySet<string>) {
  return async (request: FastifyRequest): Promise<void> => {
    const host = request.headers.host ?? "";
    const name = hostNameOf(host);
    if (name === undefined || !(isLoopbackHostName(name) || allowedHosts.has(name))) {
      throw permissionDenied(
        `the dev controls answer only requests addressed to a loopback name (localhost, *.localhost, 127.0.0.0/8, [::1]) ` +
          `or to a host of STRONGROOM_DEV_ALLOWED_HOSTS, not to Host ${JSON.stringify(host.slice(0, 200))}: ` +
          `a web page that reaches this server under its own name (DNS rebinding) must not drive them`,
      );
    }
    if (request.headers[DEV_CONTROLS_HEADER.toLowerCase()] === undefined) {
      throw permissionDenied(
        `requests to the dev controls must carry the header ${DEV_CONTROLS_HEADER}: 1 ` +
          `(a web page on another origin cannot send it, so it cannot read codes, reset the store or move the clock)`,
      );
    }
  };
}

function jsonBody(body: unknown): Record<string, unknown> {
  const text = Buffer.isBuffer(body) ? body.toString("utf8") : "";
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidArgument("the request body is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw invalidArgument("the request body must be a JSON object");
  return parsed as Record<string, unknown>;
}

const clockState = (clock: DevClock) => ({ now: clock.now().toISOString(), offsetSeconds: clock.offsetSeconds() });

/** The dev server's own endpoints under /dev/ (only `strongroom dev` and the test kit add them; never `serve`). */
export function registerDevRoutes(app: FastifyInstance, controls: DevControls): void {
  const guarded = { onRequest: onlyLocalTools(new Set((controls.allowedHosts ?? []).map((host) => host.toLowerCase()))) };
  app.get<{ Querystring: { to?: string } }>("/dev/inbox", guarded, async (request) => ({
    messages: controls.inbox.messages(request.query.to),
  }));
  app.delete("/dev/inbox", guarded, async () => {
    controls.inbox.clear();
    return { messages: [] };
  });
  app.post("/dev/reset", guarded, async () => {
    await controls.reset();
    return { status: "reset", ...clockState(controls.clock) };
  });
  app.get("/dev/clock", guarded, async () => clockState(controls.clock));
  app.post("/dev/clock", guarded, async (request) => {
    const { advanceSeconds } = jsonBody(request.body);
    if (typeof advanceSeconds !== "number" || !Number.isFinite(advanceSeconds) || advanceSeconds < 0) {
      throw invalidArgument(`advanceSeconds must be a number of seconds ≥ 0, got ${JSON.stringify(advanceSeconds) ?? "nothing"}`);
    }
    controls.clock.advance(advanceSeconds);
    return clockState(controls.clock);
  });
}

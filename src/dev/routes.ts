import type { FastifyInstance } from "fastify";
import { invalidArgument } from "../errors.js";
import type { DevClock } from "./clock.js";
import type { Inbox } from "./inbox.js";

export interface DevControls {
  inbox: Inbox;
  clock: DevClock;
  reset(): Promise<void>;
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
  app.get<{ Querystring: { to?: string } }>("/dev/inbox", async (request) => ({ messages: controls.inbox.messages(request.query.to) }));
  app.delete("/dev/inbox", async () => {
    controls.inbox.clear();
    return { messages: [] };
  });
  app.post("/dev/reset", async () => {
    await controls.reset();
    return { status: "reset", ...clockState(controls.clock) };
  });
  app.get("/dev/clock", async () => clockState(controls.clock));
  app.post("/dev/clock", async (request) => {
    const { advanceSeconds } = jsonBody(request.body);
    if (typeof advanceSeconds !== "number" || !Number.isFinite(advanceSeconds) || advanceSeconds < 0) {
      throw invalidArgument(`advanceSeconds must be a number of seconds ≥ 0, got ${JSON.stringify(advanceSeconds) ?? "nothing"}`);
    }
    controls.clock.advance(advanceSeconds);
    return clockState(controls.clock);
  });
}

import { request as httpRequest } from "node:http";
import { Pool } from "undici";

/** What a stopping server's clients saw (test/cli/stop-under-load.test.ts, test/cluster/workers.test.ts). */
export interface Outcomes {
  answered: number;
  refused: number;
  /** Errors after the request was written: what draining must never cause. */
  resets: string[];
}

/**
 * Keep-alive load: `clients` loops each sending requests one after another over a pool of keep-alive
 * connections, until `until` resolves; every outcome is counted.
 */
export function loadUntil(url: string, until: Promise<unknown>, clients = 12): { outcomes: Outcomes; finished: Promise<Outcomes> } {
  const pool = new Pool(url, { connections: 6, pipelining: 1, keepAliveTimeout: 30_000 });
  const outcomes: Outcomes = { answered: 0, refused: 0, resets: [] };
  let done = false;
  void until.then(() => (done = true));
  const client = async (i: number) => {
    while (!done) {
      try {
        const answer =
          i % 3 === 0
            ? await pool.request({ path: "/health", method: "GET" })
            : await pool.request({
                path: "/public/v1/query/whoami",
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ organizationId: "load" }),
              });
        await answer.body.text();
        outcomes.answered++;
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error);
        if (code === "ECONNREFUSED") {
          outcomes.refused++;
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else if (!done) outcomes.resets.push(code);
      }
    }
  };
  const finished = Promise.all(Array.from({ length: clients }, (_, i) => client(i))).then(async () => {
    await pool.destroy();
    return outcomes;
  });
  return { outcomes, finished };
}

/** A request whose body is still being sent: it keeps the server draining until the drain time ends. */
export async function slowRequest(url: string): Promise<void> {
  const slow = httpRequest(`${url}/public/v1/submit/create_wallet`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": 1000 },
  });
  slow.on("error", () => undefined);
  slow.write("{");
  await new Promise((resolve) => slow.once("socket", (socket) => socket.once("connect", resolve)));
  await new Promise((resolve) => setTimeout(resolve, 500));
}

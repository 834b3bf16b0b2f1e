import type { RunningServer } from "../../src/server/start.js";
import type { RootCredentials } from "./cluster.js";
import { activityBody, p256Stamp, post } from "./requests.js";

/** The answer while the database is unavailable. */
export const UNAVAILABLE = { code: 14, message: "the database is unavailable; retry shortly", details: [] };

/** Signed requests in a loop, counting answers by status, until stopped; wallets whose creation answered 200. */
export function steadyLoad(server: RunningServer, root: RootCredentials) {
  const statuses = new Map<number, number>();
  const bodies503: unknown[] = [];
  const created: string[] = [];
  let stopped = false;
  let n = 0;
  const signed = (path: string, body: string) =>
    post(`${server.url}${path}`, body, { "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey) });
  const loop = async () => {
    while (!stopped) {
      const walletName = `outage ${n++}`;
      const answer =
        n % 2 === 0
          ? await signed("/public/v1/query/whoami", JSON.stringify({ organizationId: root.organizationId }))
          : await signed(
              "/public/v1/submit/create_wallet",
              activityBody("ACTIVITY_TYPE_CREATE_WALLET", root.organizationId, { walletName, accounts: [] }),
            );
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 503) bodies503.push(answer.json);
      if (answer.status === 200 && answer.json.activity) created.push(walletName);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Promise.all([loop(), loop(), loop()]);
  return {
    statuses,
    bodies503,
    created,
    count: (status: number) => statuses.get(status) ?? 0,
    async stop() {
      stopped = true;
      await loops;
    },
  };
}

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { watchStore } from "../helpers/watch-store.js";
import { ETHEREUM_ACCOUNT, ethereumAccountAt } from "../helpers/wallet-accounts.js";

const WALLET_INSERT = /INSERT INTO wallets /;
const ACCOUNTS_INSERT = /INSERT INTO wallet_accounts /;
const ACTIVITY_INSERT = /INSERT INTO activities /;
const CLAIM_DELETE = /DELETE FROM activity_claims WHERE fingerprint/;
const CLAIM = /INSERT INTO activity_claims /;
const BODY_LOOKUP = /^SELECT \* FROM activities WHERE fingerprint = \$1$/;

/**
 * A new wallet's statements: the wallet and its accounts go in one, the body's claim and the lookup of its activity
 * leave together, and the claim is deleted by the activity's insert, so each costs no round trip of its own; a wallet
 * refused (its name taken) writes no account.
 */
describe("a new wallet's statements", () => {
  let server: TestServer;
  let store: ReturnType<typeof watchStore>;
  const accountCount = async () =>
    Number((await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM wallet_accounts"))[0]!.n);
  const claimCount = async () =>
    Number((await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM activity_claims"))[0]!.n);

  beforeAll(async () => {
    server = await startTestServer();
    store = watchStore(server);
  });
  afterAll(async () => server?.close());

  it("writes the wallet with its accounts in one statement, and the claim goes with the activity's insert", async () => {
    store.statements = [];
    store.committedWith = [];
    const { walletId, addresses } = await server
      .client()
      .createWallet({ walletName: "one statement", accounts: [ETHEREUM_ACCOUNT, ethereumAccountAt(1)] });
    const writes = store.statements.filter((sql) => WALLET_INSERT.test(sql) || ACCOUNTS_INSERT.test(sql));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(WALLET_INSERT);
    expect(writes[0]).toMatch(ACCOUNTS_INSERT);
    const [activityInsert, ...otherInserts] = store.statements.filter((sql) => ACTIVITY_INSERT.test(sql));
    expect(otherInserts).toEqual([]);
    expect(activityInsert).toMatch(CLAIM_DELETE);
    expect(store.statements.filter((sql) => CLAIM_DELETE.test(sql) && !ACTIVITY_INSERT.test(sql))).toEqual([]);
    expect(await claimCount()).toBe(0);
    // The claim, then the body's activity looked up with the claim's transaction's COMMIT: one round trip.
    const lookup = store.statements.findIndex((sql) => BODY_LOOKUP.test(sql));
    expect(store.statements[lookup - 1]).toMatch(CLAIM);
    expect(store.committedWith.filter((sql) => BODY_LOOKUP.test(sql))).toHaveLength(1);
    const { accounts } = await server.client().getWalletAccounts({ walletId });
    expect(accounts.map((account) => account.address)).toEqual(addresses);
    expect(accounts.map((account) => account.path)).toEqual([ETHEREUM_ACCOUNT.path, ethereumAccountAt(1).path]);
  });

  it("writes no account when the wallet is refused, and releases the claim", async () => {
    await server.client().createWallet({ walletName: "taken", accounts: [] });
    const before = await accountCount();
    const refused = await server.client().createWallet({ walletName: "taken", accounts: [ethereumAccountAt(7)] });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain('a wallet named "taken" already exists');
    expect(await accountCount()).toBe(before);
    expect(await claimCount()).toBe(0);
  });
});

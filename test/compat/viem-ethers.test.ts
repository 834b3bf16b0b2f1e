import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeySigner } from "@turnkey/ethers";
import { TurnkeyActivityError, TurnkeyClient, TurnkeyRequestError } from "@turnkey/http";
import { createAccount } from "@turnkey/viem";
import {
  JsonRpcProvider,
  Transaction as EthersTransaction,
  Wallet,
  verifyMessage as ethersVerifyMessage,
  verifyTypedData as ethersVerifyTypedData,
} from "ethers";
import ganache from "ganache";
import { Writable } from "node:stream";
import {
  createWalletClient,
  defineChain,
  hashMessage,
  http,
  keccak256,
  parseEther,
  recoverAddress,
  recoverTransactionAddress,
  stringToHex,
  verifyMessage,
  verifyTypedData,
  type Hex,
} from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { startTestServer } from "../helpers/server.js";

const BANNED = "0x000000000000000000000000000000000000bad1" as const;
const RECIPIENT = "0x2Ad9eA1E677949a536A270CEC812D6e868C88108" as const;
const CHAIN_ID = 31337;
const ganacheChain = defineChain({
  id: CHAIN_ID,
  name: "ganache",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [] } },
});

/** A real local EVM node (ganache) on loopback, with deterministic funded accounts. */
async function startChain() {
  const node = ganache.server({ logging: { quiet: true }, wallet: { deterministic: true }, chain: { chainId: CHAIN_ID } });
  await new Promise<void>((resolve, reject) => node.listen(0, "127.0.0.1", (error) => (error ? reject(error) : resolve())));
  const url = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result: T; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  };
  return { url, rpc, close: () => node.close() };
}
type Chain = Awaited<ReturnType<typeof startChain>>;

/**
 * A Strongroom with an Ethereum wallet account and a non-root API user that may sign (allow policy) but never
 * for BANNED (deny policy on eth.tx.to) — the setup of the hosted service's own viem and ethers suites.
 */
async function startSigningServer(env: Record<string, string> = {}, logStream?: NodeJS.WritableStream) {
  const server = await startTestServer({ env, ...(logStream ? { logStream } : {}) });
  const root = server.client();
  const { addresses } = await root.createWallet({
    walletName: "evm",
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
    ],
  });
  const key = generateP256KeyPair();
  const { userIds } = await root.createUsers({
    users: [
      {
        userName: "signer",
        apiKeys: [{ apiKeyName: "signer key", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      },
    ],
  });
  const signer = userIds[0]!;
  await root.createPolicy({
    policyName: "the signer may sign",
    effect: "EFFECT_ALLOW",
    consensus: `approvers.any(user, user.id == '${signer}')`,
    condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
    notes: "",
  });
  await root.createPolicy({
    policyName: "never to the banned address",
    effect: "EFFECT_DENY",
    condition: `eth.tx.to == '${BANNED}'`,
    notes: "",
  });
  const client = new TurnkeyClient(
    { baseUrl: server.url },
    new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
  );
  return { server, client, address: addresses[0] as Hex };
}
type SigningServer = Awaited<ReturnType<typeof startSigningServer>>;

async function minedReceipt(chain: Chain, hash: Hex) {
  const receipt = await chain.rpc<{ status: string; from: string; blockNumber: string } | null>("eth_getTransactionReceipt", [hash]);
  expect(receipt).not.toBeNull();
  return receipt!;
}

async function turnkeyFailure(promise: Promise<unknown>): Promise<Error & { cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { cause?: unknown };
  }
  throw new Error("expected signing to be refused");
}

/** @turnkey/viem's account signing a transfer to the recipient the deny policy bans: the error it throws. */
async function viemTransferToBanned(signing: SigningServer): Promise<Error & { cause?: unknown }> {
  const viemAccount = await createAccount({
    client: signing.client as never,
    organizationId: signing.server.root.organizationId,
    signWith: signing.address,
  });
  return turnkeyFailure(
    viemAccount.signTransaction({
      type: "eip1559",
      chainId: CHAIN_ID,
      nonce: 0,
      to: BANNED,
      value: 1n,
      gas: 21000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    }),
  );
}

/** The same transfer signed through @turnkey/ethers' TurnkeySigner, with the transaction fields given. */
async function ethersTransferToBanned(
  signing: SigningServer,
  fields: Record<string, number | bigint> = {},
): Promise<Error & { cause?: unknown }> {
  const signer = new TurnkeySigner({
    client: signing.client as never,
    organizationId: signing.server.root.organizationId,
    signWith: signing.address,
  });
  return turnkeyFailure(signer.signTransaction({ to: BANNED, value: 1n, type: 2, ...fields }));
}

/** The sign_transaction_v2 request (as @turnkey/http takes it) for an empty EIP-1559 transaction to `to`. */
const signTransactionRequest = (signing: SigningServer, to: string) => ({
  type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" as const,
  timestampMs: String(Date.now()),
  organizationId: signing.server.root.organizationId,
  parameters: {
    signWith: signing.address,
    type: "TRANSACTION_TYPE_ETHEREUM" as const,
    unsignedTransaction: EthersTransaction.from({ to, type: 2 }).unsignedSerialized.slice(2),
  },
});

const typedData = {
  domain: { name: "EIP712 Test", version: "1", chainId: CHAIN_ID, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
  },
  primaryType: "Person",
  message: { name: "Alice", wallet: RECIPIENT },
} as const;

describe("@turnkey/viem and @turnkey/ethers against Strongroom and a local EVM node", () => {
  let chain: Chain;
  let signing: SigningServer;

  beforeAll(async () => {
    chain = await startChain();
    signing = await startSigningServer();
    const [funder] = await chain.rpc<string[]>("eth_accounts");
    const funding = await chain.rpc<Hex>("eth_sendTransaction", [
      { from: funder, to: signing.address, value: `0x${parseEther("100").toString(16)}` },
    ]);
    expect((await minedReceipt(chain, funding)).status).toBe("0x1");
  });
  afterAll(async () => {
    await signing?.server.close();
    await chain?.close();
  });

  describe("@turnkey/viem's account", () => {
    const account = () =>
      createAccount({ client: signing.client as never, organizationId: signing.server.root.organizationId, signWith: signing.address });

    it("signs messages eth_sign style (a raw hash) and personal_sign style", async () => {
      const turnkey = await account();
      const hash = keccak256(stringToHex("Hello Turnkey"));
      expect(await recoverAddress({ hash, signature: await turnkey.sign!({ hash }) })).toBe(signing.address);
      for (const message of ["Hello Turnkey", { raw: stringToHex("Hello Turnkey") }] as const) {
        const signature = await turnkey.signMessage({ message });
        expect(await verifyMessage({ address: signing.address, message, signature })).toBe(true);
        expect(await recoverAddress({ hash: hashMessage(message), signature })).toBe(signing.address);
      }
    });

    it("signs typed data (EIP-712) through a wallet client, which adds the EIP712Domain type", async () => {
      const wallet = createWalletClient({ account: await account(), chain: ganacheChain, transport: http(chain.url) });
      const signature = await wallet.signTypedData(typedData);
      expect(await verifyTypedData({ ...typedData, address: signing.address, signature })).toBe(true);
    });

    it("sends EIP-1559, legacy and EIP-2930 transactions that the node mines", async () => {
      const wallet = createWalletClient({ account: await account(), chain: ganacheChain, transport: http(chain.url) });
      for (const type of ["eip1559", "legacy", "eip2930"] as const) {
        const hash = await wallet.sendTransaction({ to: RECIPIENT, value: 1000n, type } as never);
        const receipt = await minedReceipt(chain, hash);
        expect(receipt.status).toBe("0x1");
        expect(receipt.from).toBe(signing.address.toLowerCase());
      }
    });

    it("signs an EIP-7702 authorization and a type-4 transaction carrying it (recovered: the node does not take type 4)", async () => {
      const turnkey = await account();
      const authorization = await turnkey.signAuthorization!({ chainId: CHAIN_ID, nonce: 0, contractAddress: RECIPIENT });
      expect(await recoverAuthorizationAddress({ authorization })).toBe(signing.address);
      const signed = await turnkey.signTransaction({
        type: "eip7702",
        chainId: CHAIN_ID,
        nonce: 7,
        to: signing.address,
        gas: 100_000n,
        maxFeePerGas: 3_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        authorizationList: [authorization],
      });
      expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(signing.address);
      expect(EthersTransaction.from(signed).from).toBe(signing.address);
    });

    it("signs partially filled transactions of every type (zero nonce, fees and value serialize as empty RLP strings)", async () => {
      const turnkey = await account();
      const partial = [
        { type: "legacy", to: RECIPIENT },
        { type: "eip2930", chainId: CHAIN_ID, to: RECIPIENT },
        { type: "eip1559", chainId: CHAIN_ID, to: RECIPIENT },
        {
          type: "eip7702",
          chainId: CHAIN_ID,
          to: RECIPIENT,
          authorizationList: [await turnkey.signAuthorization!({ chainId: CHAIN_ID, nonce: 0, contractAddress: RECIPIENT })],
        },
      ] as const;
      for (const transaction of partial) {
        const signed = await turnkey.signTransaction(transaction as never);
        expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(signing.address);
        expect(EthersTransaction.from(signed)).toMatchObject({ from: signing.address, nonce: 0, value: 0n });
      }
    });
  });

  describe("@turnkey/ethers' TurnkeySigner", () => {
    const signer = (provider?: JsonRpcProvider) =>
      new TurnkeySigner(
        { client: signing.client as never, organizationId: signing.server.root.organizationId, signWith: signing.address },
        // @turnkey/ethers loads ethers' CommonJS build, this file the ES module one: the same classes, twice.
        provider as never,
      );

    it("signs messages (text and bytes) and typed data", async () => {
      const turnkey = signer();
      expect(await turnkey.getAddress()).toBe(signing.address);
      expect(ethersVerifyMessage("Hello Turnkey", await turnkey.signMessage("Hello Turnkey"))).toBe(signing.address);
      const bytes = new Uint8Array([1, 2, 3, 255]);
      expect(ethersVerifyMessage(bytes, await turnkey.signMessage(bytes))).toBe(signing.address);
      const types = { Person: typedData.types.Person.map((field) => ({ ...field })) };
      const signature = await turnkey.signTypedData(typedData.domain, types, typedData.message);
      expect(ethersVerifyTypedData(typedData.domain, types, typedData.message, signature)).toBe(signing.address);
    });

    it("sends EIP-1559, legacy and EIP-2930 transactions populated by the provider, and the node mines them", async () => {
      const provider = new JsonRpcProvider(chain.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
      try {
        const turnkey = signer(provider);
        for (const type of [2, 0, 1]) {
          const response = await turnkey.sendTransaction({ to: RECIPIENT, value: 1000n, type });
          const receipt = await minedReceipt(chain, response.hash as Hex);
          expect(receipt.status).toBe("0x1");
          expect(receipt.from).toBe(signing.address.toLowerCase());
        }
      } finally {
        provider.destroy();
      }
    });

    it("signs unpopulated transactions of types 0, 1, 2 and 4 (no chain id, no nonce): ethers recovers the signer", async () => {
      const turnkey = signer();
      // TurnkeySigner does not sign authorizations (ethers' AbstractSigner refuses); any signer's will do here.
      const authorization = await Wallet.createRandom().authorize({ address: RECIPIENT, nonce: 0, chainId: 0 });
      for (const request of [
        { to: RECIPIENT, value: 1000n, type: 2 },
        { to: RECIPIENT, value: 1000n, type: 0 },
        { to: RECIPIENT, value: 1000n, type: 1 },
        { to: RECIPIENT, type: 4, authorizationList: [authorization] },
      ]) {
        const signed = EthersTransaction.from(await turnkey.signTransaction(request));
        expect(signed).toMatchObject({ from: signing.address, chainId: 0n, nonce: 0, type: request.type });
      }
    });
  });

  it("a deny policy refuses a banned recipient with Strongroom's explanation by default", async () => {
    const viemError = await viemTransferToBanned(signing);
    expect(viemError.message).toMatch(
      /^Failed to sign: Turnkey error 7: user .* ACTIVITY_TYPE_SIGN_TRANSACTION_V2 is denied by policy .* \(explicit deny\)/,
    );
    const ethersError = await ethersTransferToBanned(signing);
    expect(ethersError.name).toBe("TurnkeyActivityError");
    expect((ethersError.cause as TurnkeyRequestError).code).toBe(7);
    expect(ethersError.message).toContain("(explicit deny)");
  });
});

describe("STRONGROOM_ERROR_MESSAGES=hosted: the hosted service's wording, as its own suites snapshot it", () => {
  let signing: SigningServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    signing = await startSigningServer({ STRONGROOM_ERROR_MESSAGES: "hosted", LOG_LEVEL: "info" }, logStream);
  });
  afterAll(async () => signing?.server.close());

  it("a deny policy refuses a banned recipient: `Turnkey error 7: policy engine denied request explicitly (Details: [])`", async () => {
    const hosted = "Turnkey error 7: policy engine denied request explicitly (Details: [])";
    const viemError = await viemTransferToBanned(signing);
    // viem's BaseError appends "Version: viem@…" to `message`; `shortMessage` is the SDK's own text.
    expect((viemError as Error & { shortMessage: string }).shortMessage).toBe(`Failed to sign: ${hosted}`);

    const ethersError = await ethersTransferToBanned(signing, {
      chainId: CHAIN_ID,
      nonce: 0,
      gasLimit: 21000,
      maxFeePerGas: 200e9,
      maxPriorityFeePerGas: 2e9,
    });
    // @turnkey/ethers has its own copy of @turnkey/http, hence the class name rather than instanceof.
    expect(ethersError.name).toBe("TurnkeyActivityError");
    // No activity: the signer got an HTTP error (the activity fields are the SDK's own, null or undefined by version).
    const { message, cause, activityId } = ethersError as TurnkeyActivityError;
    expect({ message, cause: String(cause) }).toEqual({ message: `Failed to sign: ${hosted}`, cause: `TurnkeyRequestError: ${hosted}` });
    expect(activityId ?? null).toBeNull();
  });

  it("keeps Strongroom's explanation in the X-Strongroom-Explanation header (exposed to browsers), and a recipient that is not banned signs", async () => {
    const body = JSON.stringify(signTransactionRequest(signing, BANNED));
    const stamp = await signing.client.stampSignTransaction(JSON.parse(body));
    const response = await fetch(`${signing.server.url}/public/v1/submit/sign_transaction`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "http://app.example",
        [stamp.stamp.stampHeaderName]: stamp.stamp.stampHeaderValue,
      },
      body: stamp.body,
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: 7, message: "policy engine denied request explicitly", details: [] });
    expect(response.headers.get("x-strongroom-explanation")).toMatch(/is denied by policy .* \(explicit deny\)$/);
    expect(response.headers.get("access-control-expose-headers")).toContain("X-Strongroom-Explanation");
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; explanation?: string });
    expect(logged.find((line) => line.msg === "error answered in the hosted wording")?.explanation).toMatch(/\(explicit deny\)$/);

    const allowed = await signing.client.signTransaction(signTransactionRequest(signing, RECIPIENT));
    expect(allowed.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("a request no policy allows gets the hosted `request not authorized`, with Strongroom's details", async () => {
    const error = await turnkeyFailure(
      signing.client.createUserTag({
        type: "ACTIVITY_TYPE_CREATE_USER_TAG",
        timestampMs: String(Date.now()),
        organizationId: signing.server.root.organizationId,
        parameters: { userTagName: "not allowed", userIds: [] },
      }),
    );
    expect(error.message).toBe(
      'Turnkey error 7: request not authorized (Details: [{"@type":"type.googleapis.com/errors.v1.TurnkeyErrorDetail","turnkeyErrorCode":"REQUEST_NOT_AUTHORIZED"}])',
    );
  });

  it("is a documented setting: another value stops the server from starting", () => {
    expect(() => resolveConfig({}, { STRONGROOM_ERROR_MESSAGES: "terse" })).toThrow(
      'STRONGROOM_ERROR_MESSAGES must be explained or hosted, not "terse"',
    );
  });

  it("an unknown API key gets the message the SDKs recognize as an expired session", async () => {
    const stranger = generateP256KeyPair();
    const client = new TurnkeyClient(
      { baseUrl: signing.server.url },
      new ApiKeyStamper({ apiPublicKey: stranger.publicKey, apiPrivateKey: stranger.privateKey }),
    );
    const error = await turnkeyFailure(client.getWhoami({ organizationId: signing.server.root.organizationId }));
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    expect(error.message).toMatch(/^Turnkey error 16: could not find public key in organization or its parent organization \(Details: /);
  });
});

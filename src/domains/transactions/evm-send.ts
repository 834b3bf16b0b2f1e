import { Type, type Static, type TObject } from "@sinclair/typebox";
import type { BaseError, Hex } from "viem";
import type { EvmChain } from "../../chains/chains.js";
import { viem } from "../../crypto/chain-libraries.js";
import { signTransaction } from "../../crypto/signing/transaction.js";
import { ApiError, GrpcCode, invalidArgument } from "../../errors.js";
import {
  defineActivity,
  FilledFieldsChanged,
  type ActivityContext,
  type ActivityDefinition,
} from "../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../policy/velocity/asset-transfers.js";
import type { OrganizationRow } from "../../records/organization.js";
import { insertSendTransaction } from "../../records/send-transaction.js";
import type { Services } from "../../services.js";
import { describeSigningKey, resolveSigningKey, signingInput } from "../signing/signing-keys.js";
import { allocateNonce, committedNextNonce } from "./nonces.js";
import { revertEntry } from "./revert.js";

export const EvmAddress = (description: string) => Type.String({ pattern: "^0x[0-9a-fA-F]{40}$", description });
export const Quantity = (description: string) => Type.String({ pattern: "^[0-9]{1,78}$", description: `${description} (decimal)` });
export const Caip2 = Type.String({ pattern: "^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$", description: "CAIP-2 chain id, e.g. eip155:1" });

/** One call's fields: EthCallParams, and the V1 intent's to/value/data. */
export const EVM_CALL_FIELDS = {
  to: EvmAddress("Recipient address as a hex string with 0x prefix"),
  value: Type.Optional(Quantity("Amount of native asset to send in wei")),
  data: Type.Optional(Type.String({ description: "Hex-encoded call data for contract interactions" })),
};

/** What every version of eth_send_transaction asks besides its call(s). */
export const EVM_SEND_FIELDS = {
  from: EvmAddress("A wallet account or private key address to sign with"),
  caip2: Caip2,
  sponsor: Type.Optional(Type.Boolean()),
  nonce: Type.Optional(Quantity("Transaction nonce; omit to allocate")),
  gasLimit: Type.Optional(Quantity("Gas limit; omit to estimate")),
  maxFeePerGas: Type.Optional(Quantity("Maximum total fee per gas in wei; omit to estimate")),
  maxPriorityFeePerGas: Type.Optional(Quantity("Maximum priority fee per gas in wei; omit to estimate")),
  deadline: Type.Optional(Type.String()),
  gasStationNonce: Type.Optional(Type.String()),
};

/**
 * One version of eth_send_transaction: its parameters are EVM_SEND_FIELDS and its own call field(s), of which
 * `call` picks the call to send (`callField` names it in errors). Every version is checked, filled, decided on
 * and sent the same way.
 */
export function defineEvmSend<S extends TObject>(version: {
  type: string;
  intentKey: string;
  resultKey: string;
  summary: string;
  parameters: S;
  call: (params: Static<S>) => EvmCall;
  callField: string;
  earlierVersions?: ActivityDefinition[];
}): ActivityDefinition {
  const { call, callField, ...keys } = version;
  // The parameters carry EVM_SEND_FIELDS (each version spreads them in).
  const request = (params: Static<S>) => params as EvmSendRequest & Record<string, unknown>;
  return defineActivity({
    ...keys,
    operation: "eth_send_transaction",
    result: Type.Object({ sendTransactionStatusId: Type.String() }),
    sdkMethod: "ethSendTransaction",
    resource: "PRIVATE_KEY",
    action: "SIGN",
    policyTarget: { signer: "signWith", signs: "transaction" },
    assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
    async validate({ services, organization }, params) {
      await validateEvmSend(services, organization.id, request(params), call(params), callField);
    },
    fill: (services, params) => fillEvmSend(services, request(params), request(params), call(params), callField),
    async execute(ctx, params) {
      return { sendTransactionStatusId: await executeEvmSend(ctx, request(params), ctx.organization) };
    },
  });
}

/** One call: what EthCallParams and the V1 intent's to/value/data describe. */
export interface EvmCall {
  to: string;
  value?: string;
  data?: string;
}

/** What an eth_send_transaction asks for, either version. */
export interface EvmSendRequest {
  from: string;
  caip2: string;
  sponsor?: boolean;
  nonce?: string;
  gasLimit?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  deadline?: string;
  gasStationNonce?: string;
}

/** What `fill` adds, read back by `execute`. */
interface Filled {
  chainNonce: string;
  nonce: string;
  nonceGiven: boolean;
}

/** Checks that need no node: sponsorship, the Gas Station's fields, the sender's key; the chain must be one that is configured. */
export async function validateEvmSend(
  services: Services,
  organizationId: string,
  request: EvmSendRequest,
  call: EvmCall,
  callField: string,
): Promise<void> {
  if (request.sponsor === true)
    throw invalidArgument(
      "sponsor: gas sponsorship needs the hosted service's paymaster (Gas Station), which a self-hosted server does not have; send with sponsor false (the sender pays gas)",
      "SPONSORSHIP_UNAVAILABLE",
      [{ field: "sponsor", description: "gas sponsorship is not available on a self-hosted server" }],
    );
  for (const field of ["deadline", "gasStationNonce"] as const) {
    if (request[field] !== undefined)
      throw invalidArgument(
        `${field}: used only by sponsored transactions and Gas Station batches, which a self-hosted server does not run; leave it out`,
        "SPONSORSHIP_UNAVAILABLE",
        [{ field, description: "only for sponsored transactions" }],
      );
  }
  if (call.data !== undefined && !/^(0x)?([0-9a-fA-F]{2})*$/.test(call.data))
    throw invalidArgument(`${callField}.data: must be hex-encoded call data`, [{ field: `${callField}.data`, description: "must be hex" }]);
  const key = await describeSigningKey(services.db, organizationId, request.from, "from");
  if (key.curve !== "CURVE_SECP256K1")
    throw invalidArgument(`from: ${request.from} is a ${key.curve} key; EVM transactions are signed with secp256k1 keys`, [
      { field: "from", description: "must be an Ethereum account" },
    ]);
}

/** A node that did not answer is the request's 503, naming the chain; a call that reverts at estimation, a 400 saying why. */
function nodeError(chain: EvmChain, what: string, error: unknown, callField: string): ApiError {
  const { BaseError: ViemError } = viem();
  const base = error instanceof ViemError ? error : undefined;
  const reverted = base?.walk((e) => e instanceof ViemError && "data" in e && typeof (e as { data?: unknown }).data === "string") as
    (BaseError & { data?: string }) | undefined;
  if (reverted || /revert/i.test(base?.shortMessage ?? "")) {
    const entry = revertEntry(reverted?.data, undefined);
    return invalidArgument(
      `${callField}: the call reverts on ${chain.caip2} (${entry.displayMessage}), so its gas cannot be estimated; set gasLimit to send it anyway`,
      [{ field: callField, description: `reverts: ${entry.displayMessage}` }],
    );
  }
  const message = base?.shortMessage ?? (error as Error).message;
  return new ApiError(GrpcCode.UNAVAILABLE, `caip2: the node of ${chain.caip2} did not answer ${what}: ${message}`, "CHAIN_UNAVAILABLE");
}

/**
 * Fills what the caller left out — nonce, gas limit, EIP-1559 fees — from the chain's node and the nonces
 * committed here, outside any transaction, and builds the unsigned EIP-1559 transaction policies decide on
 * (`eth.tx`, as for sign_transaction). Only the missing fields cost a call to the node.
 */
export async function fillEvmSend(
  services: Services,
  params: Record<string, unknown>,
  request: EvmSendRequest,
  call: EvmCall,
  callField: string,
): Promise<Record<string, unknown>> {
  const chain = await services.chains.evm(request.caip2);
  const { client } = chain;
  const from = request.from as Hex;
  const ask = async <T>(what: string, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      throw nodeError(chain, what, error, callField);
    }
  };
  const value = BigInt(call.value ?? "0");
  const data = call.data ? ((call.data.startsWith("0x") ? call.data : `0x${call.data}`) as Hex) : undefined;
  const [chainNonce, committed, fees, gas] = await Promise.all([
    request.nonce === undefined
      ? ask("eth_getTransactionCount", () => client.getTransactionCount({ address: from, blockTag: "pending" }))
      : 0,
    request.nonce === undefined ? committedNextNonce(services.db, chain.caip2, from) : 0n,
    request.maxFeePerGas === undefined || request.maxPriorityFeePerGas === undefined
      ? ask("for fees (eth_feeHistory)", () => client.estimateFeesPerGas({ chain: null, type: "eip1559" }))
      : undefined,
    request.gasLimit === undefined
      ? ask("eth_estimateGas", () => client.estimateGas({ account: from, to: call.to as Hex, value, ...(data ? { data } : {}) }))
      : BigInt(request.gasLimit),
  ]);
  const nonce = request.nonce !== undefined ? BigInt(request.nonce) : BigInt(chainNonce) > committed ? BigInt(chainNonce) : committed;
  const maxFeePerGas = request.maxFeePerGas !== undefined ? BigInt(request.maxFeePerGas) : fees!.maxFeePerGas;
  let maxPriorityFeePerGas = request.maxPriorityFeePerGas !== undefined ? BigInt(request.maxPriorityFeePerGas) : fees!.maxPriorityFeePerGas;
  if (maxPriorityFeePerGas > maxFeePerGas) {
    if (request.maxPriorityFeePerGas !== undefined)
      throw invalidArgument("maxPriorityFeePerGas: must not exceed maxFeePerGas", [
        { field: "maxPriorityFeePerGas", description: "above maxFeePerGas" },
      ]);
    maxPriorityFeePerGas = maxFeePerGas;
  }
  const unsigned = viem().serializeTransaction({
    type: "eip1559",
    chainId: chain.chainId,
    nonce: Number(nonce),
    gas,
    maxFeePerGas,
    maxPriorityFeePerGas,
    to: call.to as Hex,
    value,
    ...(data ? { data } : {}),
  });
  const filled: Filled = { chainNonce: String(chainNonce), nonce: nonce.toString(), nonceGiven: request.nonce !== undefined };
  return { ...params, signWith: request.from, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: unsigned.slice(2), filled };
}

/**
 * In the activity's transaction: allocates the nonce (it must be the one the decision saw, else FilledFieldsChanged
 * and the pipeline fills again), signs the filled transaction and queues it for the broadcaster. Answers the
 * send's status id.
 */
export async function executeEvmSend(
  ctx: ActivityContext,
  params: Record<string, unknown>,
  organization: OrganizationRow,
): Promise<string> {
  const { tx, services, now } = ctx;
  const filled = params.filled as Filled;
  const from = String(params.from);
  const chain = String(params.caip2);
  const nonce = await allocateNonce(tx, chain, from, BigInt(filled.chainNonce), filled.nonceGiven ? BigInt(filled.nonce) : undefined);
  if (nonce !== BigInt(filled.nonce)) throw new FilledFieldsChanged();
  const key = await resolveSigningKey(tx, services, organization.id, from, undefined, "from");
  const unsigned = String(params.unsignedTransaction);
  const signed = `0x${signingInput(() => signTransaction(key, "TRANSACTION_TYPE_ETHEREUM", unsigned, ctx.parsedTransactions))}` as Hex;
  const id = await insertSendTransaction(
    tx,
    {
      organizationId: organization.id,
      activityId: ctx.activityId,
      chain,
      family: "evm",
      from: from.toLowerCase(),
      nonce,
      signedTransaction: signed,
      txHash: viem().keccak256(signed),
    },
    now,
  );
  ctx.afterCommit(async () => services.broadcaster.wake());
  return id;
}

import { Type, type Static, type TObject } from "@sinclair/typebox";
import { ApiError, GrpcCode, invalidArgument } from "../../errors.js";
import { signSolanaTransaction } from "../../crypto/signing/solana.js";
import { defineActivity, type ActivityContext, type ActivityDefinition } from "../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../policy/velocity/asset-transfers.js";
import { insertSendTransaction } from "../../records/send-transaction.js";
import type { Services } from "../../services.js";
import { checkSigningInput, resolveSigningKey, signingInput, withThrowawayKey } from "../signing/signing-keys.js";
import { firstSignature, readSolanaWire, unsignedSigners, withBlockhash } from "./solana-message.js";

/** What a sol_send_transaction asks for, either version: its signers in order. */
export interface SolanaSendRequest {
  unsignedTransaction: string;
  signers: string[];
  signersField: string;
  caip2: string;
  sponsor?: boolean;
  recentBlockhash?: string;
}

/** What every version of sol_send_transaction asks besides its signer(s). */
export const SOLANA_SEND_FIELDS = {
  unsignedTransaction: Type.String({ minLength: 2, description: "Hex of the serialized transaction, signature slots zeroed" }),
  sponsor: Type.Optional(Type.Boolean()),
  caip2: Type.String({ minLength: 1, description: "CAIP-2 id of the cluster (solana:<genesis hash>, solana:mainnet, solana:devnet)" }),
  recentBlockhash: Type.Optional(Type.String({ description: "Blockhash to use; omitted, the node's latest is filled in" })),
};

/**
 * One version of sol_send_transaction: its parameters are SOLANA_SEND_FIELDS and its own signer field
 * (`signersField`), whose signers `signers` lists in order. Every version is checked, filled and sent the same way.
 */
export function defineSolanaSend<S extends TObject>(version: {
  type: string;
  intentKey: string;
  resultKey: string;
  summary: string;
  parameters: S;
  signers: (params: Static<S>) => string[];
  signersField: string;
  earlierVersions?: ActivityDefinition[];
}): ActivityDefinition {
  const { signers, signersField, ...keys } = version;
  // The parameters carry SOLANA_SEND_FIELDS (each version spreads them in).
  const request = (params: Static<S>): SolanaSendRequest => ({
    ...(params as Omit<SolanaSendRequest, "signers" | "signersField">),
    signers: signers(params),
    signersField,
  });
  return defineActivity({
    ...keys,
    operation: "sol_send_transaction",
    result: Type.Object({ sendTransactionStatusId: Type.String() }),
    sdkMethod: "solSendTransaction",
    resource: "PRIVATE_KEY",
    action: "SIGN",
    policyTarget: { signer: "signWith", signs: "transaction" },
    assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
    async validate({ services, organization }, params) {
      await validateSolanaSend(services, organization.id, request(params));
    },
    fill: (services, params) => fillSolanaSend(services, params, request(params)),
    async execute(ctx, params) {
      return { sendTransactionStatusId: await executeSolanaSend(ctx, params, request(params)) };
    },
  });
}

/**
 * Checks that need no node: no sponsorship, every signer a key of the organization and a required signer of
 * the transaction (a dry run with a throwaway key), and every required signature either given or to be made.
 */
export async function validateSolanaSend(services: Services, organizationId: string, request: SolanaSendRequest): Promise<void> {
  if (request.sponsor === true)
    throw invalidArgument(
      "sponsor: fee sponsorship needs the hosted service's fee payer (Gas Station), which a self-hosted server does not have; send with sponsor false (the fee payer signs and pays)",
      "SPONSORSHIP_UNAVAILABLE",
      [{ field: "sponsor", description: "sponsorship is not available on a self-hosted server" }],
    );
  services.chains.solana(request.caip2);
  const wire = readSolanaWire(request.unsignedTransaction);
  for (const [i, signer] of request.signers.entries()) {
    await checkSigningInput(services.db, organizationId, signer, (key) => {
      const throwaway = withThrowawayKey(key);
      return signSolanaTransaction(request.unsignedTransaction, throwaway.privateKey, throwaway.publicKey);
    }).catch((error: unknown) => {
      if (error instanceof ApiError && request.signersField !== "signWith")
        throw new ApiError(error.code, error.message.replace(/^signWith:/, `${request.signersField}[${i}]:`), error.turnkeyErrorCode);
      throw error;
    });
  }
  const missing = unsignedSigners(wire).filter((address) => !request.signers.includes(address));
  if (missing.length > 0)
    throw invalidArgument(
      `${request.signersField}: the transaction also needs the signature of ${missing.join(", ")}, which is neither given in it nor among the signers`,
      [{ field: request.signersField, description: "a required signer is missing" }],
    );
}

/**
 * The blockhash: `recentBlockhash` when given; else the node's latest (read outside any transaction), unless the
 * transaction uses a durable nonce, whose nonce stays. Policies then see the transaction that will be sent (`solana.tx`).
 */
export async function fillSolanaSend(
  services: Services,
  params: Record<string, unknown>,
  request: SolanaSendRequest,
): Promise<Record<string, unknown>> {
  const chain = services.chains.solana(request.caip2);
  const wire = readSolanaWire(request.unsignedTransaction);
  let blockhash = request.recentBlockhash;
  if (blockhash === undefined && !wire.durableNonce) {
    try {
      blockhash = (await chain.call((rpc) => rpc.getLatestBlockhash({ commitment: "confirmed" }).send())).value.blockhash;
    } catch (error) {
      throw new ApiError(
        GrpcCode.UNAVAILABLE,
        `caip2: the node of ${chain.caip2} did not answer getLatestBlockhash: ${(error as Error).message}`,
        "CHAIN_UNAVAILABLE",
      );
    }
  }
  const unsignedTransaction = blockhash === undefined ? request.unsignedTransaction.replace(/^0x/, "") : withBlockhash(wire, blockhash);
  return { ...params, signWith: request.signers[0], type: "TRANSACTION_TYPE_SOLANA", unsignedTransaction, chain: chain.caip2 };
}

/** In the activity's transaction: each signer signs in turn, and the signed transaction is queued for the broadcaster. */
export async function executeSolanaSend(
  ctx: ActivityContext,
  params: Record<string, unknown>,
  request: SolanaSendRequest,
): Promise<string> {
  const { tx, services, organization, now } = ctx;
  let hex = String(params.unsignedTransaction);
  for (const [i, signer] of request.signers.entries()) {
    const field = request.signersField === "signWith" ? "signWith" : `${request.signersField}[${i}]`;
    const key = await resolveSigningKey(tx, services, organization.id, signer, undefined, field);
    hex = signingInput(() => signSolanaTransaction(hex, key.privateKey, key.publicKey));
  }
  const wire = readSolanaWire(hex);
  const id = await insertSendTransaction(
    tx,
    {
      organizationId: organization.id,
      activityId: ctx.activityId,
      chain: String(params.chain),
      family: "solana",
      from: request.signers[0]!,
      signedTransaction: Buffer.from(wire.bytes).toString("base64"),
      txHash: firstSignature(wire),
    },
    now,
  );
  ctx.afterCommit(async () => services.broadcaster.wake());
  return id;
}

import { ApiError, GrpcCode, invalidArgument } from "../../errors.js";
import { signSolanaTransaction } from "../../crypto/signing/solana.js";
import type { ActivityContext } from "../../operations/activity-definition.js";
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

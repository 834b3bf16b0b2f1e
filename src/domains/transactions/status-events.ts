import { createHash } from "node:crypto";
import type { SendStatus, SendTransactionRow, TxError } from "../../records/send-transaction.js";
import type { Queryable } from "../../store/database.js";
import { enqueue } from "../webhooks/outbox.js";
import { recordAuditEvent, type AuditRecorder } from "../../audit/record.js";

/**
 * A send's new status, in the transaction that records it: its entry in the audit log, and its webhooks (below).
 * Answers how many deliveries were queued.
 */
export async function recordStatusChange(
  tx: Queryable,
  audit: AuditRecorder,
  row: SendTransactionRow,
  status: SendStatus,
  change: { txHash?: string; error?: TxError },
  now: Date,
): Promise<number> {
  await recordAuditEvent(tx, audit, {
    organizationId: row.organization_id,
    time: now,
    type: "transaction.status",
    details: {
      sendTransactionStatusId: row.id,
      activityId: row.activity_id,
      caip2: row.chain,
      status,
      txHash: change.txHash,
      ...(change.error ? { errorHmac: audit.hmac(JSON.stringify(change.error)) } : {}),
    },
  });
  return emitStatusUpdate(tx, row, status, change, now);
}

/**
 * SEND_TRANSACTION_STATUS_UPDATES, queued in the transaction that records the status: the documented body
 * `{type: "transaction:status", organizationId, parentOrganizationId, msg: {sendTransactionStatusId, activityId,
 * status, caip2, idempotencyKey, timestamp, txHash?, error?}}`. The idempotency key is the same for the same
 * status of the same send, so a receiver can drop a repeat.
 */
async function emitStatusUpdate(
  tx: Queryable,
  row: SendTransactionRow,
  status: SendStatus,
  change: { txHash?: string; error?: TxError },
  now: Date,
): Promise<number> {
  return enqueue(
    tx,
    row.organization_id,
    "SEND_TRANSACTION_STATUS_UPDATES",
    { network: row.chain, status },
    async () => {
      const [organization] = await tx.query<{ parent_id: string | null }>("SELECT parent_id FROM organizations WHERE id = $1", [
        row.organization_id,
      ]);
      return JSON.stringify({
        type: "transaction:status",
        organizationId: row.organization_id,
        parentOrganizationId: organization?.parent_id ?? row.organization_id,
        msg: {
          sendTransactionStatusId: row.id,
          activityId: row.activity_id,
          status,
          caip2: row.chain,
          idempotencyKey: createHash("sha256").update(`${row.id}:${status}`).digest("hex"),
          timestamp: Math.floor(now.getTime() / 1000),
          ...(change.txHash ? { txHash: change.txHash } : {}),
          ...(change.error ? { error: change.error } : {}),
        },
      });
    },
    now,
  );
}

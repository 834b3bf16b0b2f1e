import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { requireSendTransaction, SendTransactionStatusRecord, sendTransactionStatusRecord } from "../../../records/send-transaction.js";
import { Id } from "../../../schema/common.js";

export const getSendTransactionStatus = defineQuery({
  operation: "get_send_transaction_status",
  sdkMethod: "getSendTransactionStatus",
  summary: "Where a sent transaction stands: INITIALIZED, BROADCASTING, INCLUDED or FAILED, with its hash and any error",
  body: Type.Object({ organizationId: Id(), sendTransactionStatusId: Type.String({ minLength: 1 }) }),
  result: SendTransactionStatusRecord,
  async execute({ organization, services }, { sendTransactionStatusId }) {
    return sendTransactionStatusRecord(await requireSendTransaction(services.db, organization.id, sendTransactionStatusId));
  },
});

import { Type } from "@sinclair/typebox";
import { loadPrivateKeyRecords, requirePrivateKey, PrivateKeyRecord } from "../../../records/private-key.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getPrivateKey = defineQuery({
  operation: "get_private_key",
  sdkMethod: "getPrivateKey",
  summary: "One private key with its addresses and tags",
  body: Type.Object({ organizationId: Id(), privateKeyId: Id() }),
  result: Type.Object({ privateKey: PrivateKeyRecord }),
  async execute({ organization, services }, { privateKeyId }) {
    await requirePrivateKey(services.db, organization.id, privateKeyId);
    const [privateKey] = await loadPrivateKeyRecords(services.db, organization.id, [privateKeyId]);
    return { privateKey };
  },
});

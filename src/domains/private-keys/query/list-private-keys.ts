import { Type } from "@sinclair/typebox";
import { loadPrivateKeyRecords, PrivateKeyRecord } from "../../../records/private-key.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listPrivateKeys = defineQuery({
  operation: "list_private_keys",
  sdkMethod: "getPrivateKeys",
  summary: "Every private key of the organization with addresses, tags and exported/imported flags, oldest first",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ privateKeys: Type.Array(PrivateKeyRecord) }),
  async execute({ organization, services }) {
    return { privateKeys: await loadPrivateKeyRecords(services.db, organization.id) };
  },
});

import { Type } from "@sinclair/typebox";
import type { Curve } from "../../crypto/hd/derive.js";
import { generatePrivateKey } from "../../crypto/keys.js";
import { defineActivity } from "../definition.js";
import { insertPrivateKey, PrivateKeyParams } from "../shared/private-keys.js";

export const createPrivateKeys = defineActivity({
  operation: "create_private_keys",
  type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
  intentKey: "createPrivateKeysIntentV2",
  resultKey: "createPrivateKeysResultV2",
  sdkMethod: "createPrivateKeys",
  summary: "Create standalone private keys with their addresses and tags",
  resource: "PRIVATE_KEY",
  action: "CREATE",
  parameters: Type.Object({ privateKeys: Type.Array(PrivateKeyParams, { minItems: 1, maxItems: 100 }) }),
  async execute({ tx, organization, now, services }, { privateKeys }) {
    const created = [];
    for (const [index, key] of privateKeys.entries()) {
      const at = `privateKeys[${index}]`;
      created.push(
        await insertPrivateKey(
          tx,
          services,
          {
            organizationId: organization.id,
            name: key.privateKeyName,
            curve: key.curve as Curve,
            privateKey: generatePrivateKey(key.curve as Curve),
            addressFormats: key.addressFormats,
            tagIds: key.privateKeyTags,
            imported: false,
            now,
          },
          { name: `${at}.privateKeyName`, addressFormats: `${at}.addressFormats`, tags: `${at}.privateKeyTags` },
        ),
      );
    }
    return { privateKeys: created };
  },
});

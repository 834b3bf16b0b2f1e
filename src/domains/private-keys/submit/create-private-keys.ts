import { setImmediate } from "node:timers/promises";
import { Type } from "@sinclair/typebox";
import type { AddressFormat } from "../../../crypto/addresses/index.js";
import type { Curve } from "../../../crypto/hd/derive.js";
import { generatePrivateKey } from "../../../crypto/keys.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { derivePrivateKey, insertPrivateKey, PrivateKeyParams, checkAddressFormats, requirePrivateKeyTag } from "../private-keys.js";
import { PrivateKeyResult } from "../../../records/private-key.js";
import { mustExist } from "../../references.js";

export const createPrivateKeys = defineActivity({
  operation: "create_private_keys",
  type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
  intentKey: "createPrivateKeysIntentV2",
  resultKey: "createPrivateKeysResultV2",
  result: Type.Object({ privateKeys: Type.Array(PrivateKeyResult) }),
  sdkMethod: "createPrivateKeys",
  summary: "Create standalone private keys with their addresses and tags",
  resource: "PRIVATE_KEY",
  action: "CREATE",
  parameters: Type.Object({ privateKeys: Type.Array(PrivateKeyParams, { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { privateKeys }) {
    for (const [index, key] of privateKeys.entries()) {
      const at = `privateKeys[${index}]`;
      checkAddressFormats(key.curve as Curve, key.addressFormats as AddressFormat[], `${at}.addressFormats`);
      for (const [tagIndex, tagId] of key.privateKeyTags.entries())
        await mustExist(requirePrivateKeyTag(db, organization.id, tagId, `${at}.privateKeyTags[${tagIndex}]`));
    }
  },
  // Keys generated and their addresses derived before the transaction, one key per turn of the event loop.
  async prepare(_services, { privateKeys }) {
    const prepared = [];
    for (const [index, key] of privateKeys.entries()) {
      if (index > 0) await setImmediate(); // the next turn of the event loop
      const privateKey = generatePrivateKey(key.curve as Curve);
      prepared.push({
        privateKey,
        derived: derivePrivateKey(
          key.curve as Curve,
          privateKey,
          key.addressFormats as AddressFormat[],
          `privateKeys[${index}].addressFormats`,
        ),
      });
    }
    return prepared;
  },
  async execute({ tx, organization, now, services }, { privateKeys }, prepared) {
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
            privateKey: prepared[index]!.privateKey,
            derived: prepared[index]!.derived,
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

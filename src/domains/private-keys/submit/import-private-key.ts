import { Type } from "@sinclair/typebox";
import type { Curve } from "../../../crypto/hd/derive.js";
import { isValidPrivateKey } from "../../../crypto/keys.js";
import { invalidArgument } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { openImport } from "../../wallets/import-keys.js";
import type { AddressFormat } from "../../../crypto/addresses/index.js";
import { checkAddressFormats, insertPrivateKey } from "../private-keys.js";
import { AddressFormatParam, CurveParam } from "../../wallets/wallets.js";
import { PrivateKeyResult } from "../../../records/private-key.js";

export const importPrivateKey = defineActivity({
  operation: "import_private_key",
  type: "ACTIVITY_TYPE_IMPORT_PRIVATE_KEY",
  intentKey: "importPrivateKeyIntent",
  resultKey: "importPrivateKeyResult",
  result: PrivateKeyResult,
  sdkMethod: "importPrivateKey",
  summary: "Import a private key encrypted to the user's import key (see init_import_private_key)",
  resource: "PRIVATE_KEY",
  action: "IMPORT",
  parameters: Type.Object({
    userId: Id(),
    privateKeyName: Name(),
    encryptedBundle: Type.String({ minLength: 1 }),
    curve: CurveParam,
    addressFormats: Type.Array(AddressFormatParam, { maxItems: 50 }),
  }),
  async validate({ db, organization }, { userId, curve, addressFormats }) {
    await mustExist(requireUser(db, organization.id, userId));
    checkAddressFormats(curve as Curve, addressFormats as AddressFormat[], "addressFormats");
  },
  async execute({ tx, organization, now, services }, { userId, privateKeyName, encryptedBundle, curve, addressFormats }) {
    await requireUser(tx, organization.id, userId);
    const privateKey = await openImport(tx, services, { userId, kind: "PRIVATE_KEY" }, encryptedBundle);
    if (!isValidPrivateKey(curve as Curve, privateKey)) {
      const why = `the decrypted key is not a valid 32-byte ${curve} private key (got ${privateKey.length} bytes)`;
      throw invalidArgument(`encryptedBundle: ${why}`, [{ field: "encryptedBundle", description: why }]);
    }
    return insertPrivateKey(
      tx,
      services,
      {
        organizationId: organization.id,
        name: privateKeyName,
        curve: curve as Curve,
        privateKey,
        addressFormats,
        tagIds: [],
        imported: true,
        now,
      },
      { name: "privateKeyName", addressFormats: "addressFormats", tags: "privateKeyTags" },
    );
  },
});

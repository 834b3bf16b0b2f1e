import { Type } from "@sinclair/typebox";
import { HASH_FUNCTIONS, PAYLOAD_ENCODINGS, rawPayloadMessage, signRawPayload as sign } from "../../../crypto/signing/raw-payload.js";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { resolveSigningKey, signingInput, RawSignatureResult, checkSigningInput, readAheadSigningKey } from "../signing-keys.js";

export const signRawPayload = defineActivity({
  operation: "sign_raw_payload",
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  intentKey: "signRawPayloadIntentV2",
  resultKey: "signRawPayloadResult",
  result: RawSignatureResult,
  sdkMethod: "signRawPayload",
  summary: "Sign a raw payload with a wallet account or private key",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "raw-payload" },
  policyParams: { hash_function: "hashFunction", encoding: "encoding" },
  parameters: Type.Object({
    signWith: Type.String({ minLength: 1, description: "A wallet account address, private key address, or private key id" }),
    payload: Type.String(),
    encoding: StringEnum(PAYLOAD_ENCODINGS),
    hashFunction: StringEnum(HASH_FUNCTIONS),
  }),
  readAhead: readAheadSigningKey,
  async validate({ db, organization, readAhead }, { signWith, payload, encoding, hashFunction }) {
    return checkSigningInput(db, organization.id, signWith, (key) => rawPayloadMessage(key, payload, encoding, hashFunction), readAhead);
  },
  async execute({ tx, organization, services, validated }, { signWith, payload, encoding, hashFunction }) {
    const key = await resolveSigningKey(tx, services, organization.id, signWith, validated);
    return { ...signingInput(() => sign(key, payload, encoding, hashFunction)) };
  },
});

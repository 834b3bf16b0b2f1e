import { Type } from "@sinclair/typebox";
import {
  HASH_FUNCTIONS,
  PAYLOAD_ENCODINGS,
  rawPayloadMessage,
  signRawPayloadMessage,
  type SigningKey,
  type HashFunction,
  type PayloadEncoding,
} from "../../../crypto/signing/raw-payload.js";
import { StringEnum } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { resolveSigningKey, signingInput, RawSignatureResult, checkSigningInput, readAheadSigningKey } from "../signing-keys.js";

export const signRawPayloads = defineActivity({
  operation: "sign_raw_payloads",
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  intentKey: "signRawPayloadsIntent",
  resultKey: "signRawPayloadsResult",
  result: Type.Object({ signatures: Type.Array(RawSignatureResult) }),
  sdkMethod: "signRawPayloads",
  summary: "Sign several raw payloads with one wallet account or private key",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith" },
  policyParams: { hash_function: "hashFunction", encoding: "encoding" },
  parameters: Type.Object({
    signWith: Type.String({ minLength: 1, description: "A wallet account address, private key address, or private key id" }),
    payloads: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }),
    encoding: StringEnum(PAYLOAD_ENCODINGS),
    hashFunction: StringEnum(HASH_FUNCTIONS),
  }),
  readAhead: readAheadSigningKey,
  async validate({ db, organization, readAhead }, { signWith, payloads, encoding, hashFunction }) {
    return checkSigningInput(db, organization.id, signWith, (key) => messages(key, payloads, encoding, hashFunction), readAhead);
  },
  async execute({ tx, organization, services, validated }, { signWith, payloads, encoding, hashFunction }) {
    const key = await resolveSigningKey(tx, services, organization.id, signWith, validated);
    const signatures = signingInput(() => messages(key, payloads, encoding, hashFunction)).map((m) =>
      signRawPayloadMessage(m, key.privateKey),
    );
    return { signatures };
  },
});

/** Each payload decoded and hashed (rawPayloadMessage), a refusal naming the payload's index. */
function messages(
  key: Pick<SigningKey, "curve" | "addressFormat">,
  payloads: string[],
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
) {
  return payloads.map((payload, index) => {
    try {
      return rawPayloadMessage(key, payload, encoding, hashFunction);
    } catch (error) {
      if (error instanceof Error) error.message = error.message.replace(/^payload:/, `payloads[${index}]:`);
      throw error;
    }
  });
}

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { signEcdsa } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

const FIELD = "unsignedTransaction";

interface ProtoField {
  number: number;
  wireType: number;
  /** the whole field, key included */
  start: number;
  end: number;
  /** payload of a length-delimited field */
  value?: Uint8Array;
}

function readVarint(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < 10; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) return undefined;
    if (i < 7) value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { value, next: offset + i + 1 };
  }
  return undefined;
}

/** The top-level fields of a protobuf message, or undefined when the bytes are not one. */
function protoFields(bytes: Uint8Array): ProtoField[] | undefined {
  const fields: ProtoField[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const key = readVarint(bytes, offset);
    if (!key || key.value < 8) return undefined;
    const number = Math.floor(key.value / 8);
    const wireType = key.value % 8;
    let end: number;
    let value: Uint8Array | undefined;
    if (wireType === 0) {
      const varint = readVarint(bytes, key.next);
      if (!varint) return undefined;
      end = varint.next;
    } else if (wireType === 1) end = key.next + 8;
    else if (wireType === 5) end = key.next + 4;
    else if (wireType === 2) {
      const length = readVarint(bytes, key.next);
      if (!length) return undefined;
      end = length.next + length.value;
      value = bytes.subarray(length.next, end);
    } else return undefined;
    if (end > bytes.length) return undefined;
    fields.push({ number, wireType, start: offset, end, ...(value ? { value } : {}) });
    offset = end;
  }
  return fields;
}

function encodeVarint(value: number): Uint8Array {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  return Uint8Array.from(out);
}

function lengthDelimited(fieldNumber: number, value: Uint8Array): Uint8Array {
  return concatBytes(encodeVarint(fieldNumber * 8 + 2), encodeVarint(value.length), value);
}

/** `Transaction.raw` has at least one `contract` (field 11), a message with its `parameter` (field 2, an Any). */
function isRawData(fields: ProtoField[] | undefined): boolean {
  const contracts = fields?.filter((field) => field.number === 11);
  return (
    !!contracts?.length &&
    contracts.every((field) => field.value && protoFields(field.value)?.some((inner) => inner.number === 2 && inner.wireType === 2))
  );
}

/**
 * Signs a Tron transaction. Input: hex of the protobuf `Transaction.raw` bytes — TronWeb's
 * `raw_data_hex`, which is what Turnkey's Tron examples send — or of a whole protobuf `Transaction`
 * (raw_data plus any signatures already made, for multi-signature permissions). The signature is
 * ECDSA secp256k1 over sha256(raw_data) (= the txID), 65 bytes r ‖ s ‖ v with v the recovery id
 * (0 or 1, as sign_raw_payload's `v`; java-tron also accepts 27/28), appended to the `signature`
 * list. Returns the signed protobuf `Transaction` { raw_data = 1, signature = 2, ret = 5 } as hex
 * without 0x, for `tronWeb.trx.sendHexTransaction` (Turnkey's with-tron example broadcasts
 * `signedTransaction` that way).
 */
export function signTronTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  if (unsignedTransaction.trimStart().startsWith("{")) {
    throw new SigningInputError(`${FIELD}: give the Tron transaction's raw_data_hex (hex of the protobuf raw_data), not its JSON`);
  }
  const bytes = decodeHex(unsignedTransaction, FIELD);
  if (bytes.length === 0) throw new SigningInputError(`${FIELD}: empty Tron transaction`);
  const fields = protoFields(bytes);
  let rawData: Uint8Array;
  let rest: ProtoField[] = [];
  if (isRawData(fields)) {
    rawData = bytes;
  } else {
    const raw = fields?.filter((field) => field.number === 1);
    const value = raw?.length === 1 ? raw[0]!.value : undefined;
    if (
      !fields ||
      !value ||
      !isRawData(protoFields(value)) ||
      fields.some((field) => field.wireType !== 2 || ![1, 2, 5].includes(field.number))
    ) {
      throw new SigningInputError(
        `${FIELD}: not a Tron transaction (expected hex of the protobuf raw_data, i.e. TronWeb's raw_data_hex, with at least one contract)`,
      );
    }
    rawData = value;
    rest = fields.filter((field) => field.number !== 1);
  }
  const signature = signEcdsa("CURVE_SECP256K1", sha256(rawData), privateKey);
  const signatureBytes = decodeHex(`${signature.r}${signature.s}${signature.v}`, FIELD);
  const existingSignatures = rest.filter((field) => field.number === 2).map((field) => bytes.subarray(field.start, field.end));
  const results = rest.filter((field) => field.number === 5).map((field) => bytes.subarray(field.start, field.end));
  return bytesToHex(concatBytes(lengthDelimited(1, rawData), ...existingSignatures, lengthDelimited(2, signatureBytes), ...results));
}

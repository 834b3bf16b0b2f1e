/** Input a signing function cannot use; the message starts with the field it is about ("payload: …"). */
export class SigningInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningInputError";
  }
}

export function decodeHex(value: string, field: string): Uint8Array {
  const hex = value.startsWith("0x") || value.startsWith("0X") ? value.slice(2) : value;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new SigningInputError(`${field}: not valid hexadecimal`);
  return new Uint8Array(Buffer.from(hex, "hex"));
}

import { base32nopad } from "@scure/base";

const ED25519_PUBLIC_KEY_VERSION = 6 << 3;

/** CRC16-XModem (polynomial 0x1021, initial 0), as StrKey uses. */
function crc16xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** Stellar StrKey account id (G…): base32 of version ‖ key ‖ CRC16 (little-endian). */
export function stellarAddress(ed25519PublicKey: Uint8Array): string {
  const payload = new Uint8Array([ED25519_PUBLIC_KEY_VERSION, ...ed25519PublicKey]);
  const crc = crc16xmodem(payload);
  return base32nopad.encode(new Uint8Array([...payload, crc & 0xff, crc >> 8]));
}

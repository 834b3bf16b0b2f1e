import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { randomBytes } from "node:crypto";

/**
 * A WebAuthn authenticator in software: it registers with a real "none" attestation and signs
 * assertions exactly as a platform authenticator would, so the unchanged @turnkey/webauthn-stamper
 * can run in Node with `install()` providing navigator.credentials.get.
 */
export class SoftwareAuthenticator {
  readonly secret = p256.utils.randomSecretKey();
  readonly credentialId = new Uint8Array(randomBytes(16));
  counter = 0;

  constructor(
    readonly rpId = "app.example.com",
    readonly origin = "https://app.example.com",
  ) {}

  get credentialIdB64url(): string {
    return Buffer.from(this.credentialId).toString("base64url");
  }

  private rpIdHash(): Uint8Array {
    return sha256(new TextEncoder().encode(this.rpId));
  }

  private counterBytes(): Uint8Array {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, this.counter);
    return bytes;
  }

  private coseKey(): Uint8Array {
    const point = p256.getPublicKey(this.secret, false);
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, point.slice(1, 33)],
        [-3, point.slice(33, 65)],
      ]),
    );
  }

  /** The `attestation` parameter of create_authenticators for the given base64url challenge. */
  attest(challenge: string) {
    const idLength = new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    const authData = Buffer.concat([
      this.rpIdHash(),
      new Uint8Array([0x45]),
      this.counterBytes(),
      new Uint8Array(16),
      idLength,
      this.credentialId,
      this.coseKey(),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]) as never,
    );
    const clientDataJson = JSON.stringify({ type: "webauthn.create", challenge, origin: this.origin, crossOrigin: false });
    return {
      credentialId: this.credentialIdB64url,
      clientDataJson: Buffer.from(clientDataJson).toString("base64url"),
      attestationObject: Buffer.from(attestationObject).toString("base64url"),
      transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL" as const],
    };
  }

  /** What navigator.credentials.get resolves to for these request options. */
  assert(options: { publicKey: { challenge: Uint8Array; rpId?: string } }) {
    this.counter += 1;
    const authData = new Uint8Array(Buffer.concat([this.rpIdHash(), new Uint8Array([0x05]), this.counterBytes()]));
    const clientDataJSON = new TextEncoder().encode(
      JSON.stringify({
        type: "webauthn.get",
        challenge: Buffer.from(options.publicKey.challenge).toString("base64url"),
        origin: this.origin,
        crossOrigin: false,
      }),
    );
    const signature = p256.sign(sha256(new Uint8Array(Buffer.concat([authData, sha256(clientDataJSON)]))), this.secret, {
      prehash: false,
      format: "der",
    });
    const buffer = (bytes: Uint8Array) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    return {
      type: "public-key",
      id: this.credentialIdB64url,
      rawId: buffer(this.credentialId),
      authenticatorAttachment: "platform",
      response: {
        clientDataJSON: buffer(clientDataJSON),
        authenticatorData: buffer(authData),
        signature: buffer(signature),
        userHandle: null,
      },
      getClientExtensionResults: () => ({}),
    };
  }

  /** Makes this authenticator answer navigator.credentials.get in this process. */
  install(): void {
    Object.defineProperty(globalThis, "navigator", {
      value: { credentials: { get: async (options: Parameters<SoftwareAuthenticator["assert"]>[0]) => this.assert(options) } },
      configurable: true,
      writable: true,
    });
  }
}

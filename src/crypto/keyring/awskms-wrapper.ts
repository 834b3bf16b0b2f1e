import type { AwsKmsSettings } from "../../config.js";
import type { RootWrapper } from "./root-wrapper.js";

type EncryptionContext = Record<string, string>;

/** What Strongroom uses of @aws-sdk/client-kms (typed here: the package is optional, and the build must not need it). */
interface KmsSdk {
  KMSClient: new (config: object) => {
    send(command: object): Promise<{ CiphertextBlob?: Uint8Array; Plaintext?: Uint8Array }>;
    destroy(): void;
  };
  EncryptCommand: new (input: { KeyId: string; Plaintext: Uint8Array; EncryptionContext: EncryptionContext }) => object;
  DecryptCommand: new (input: { KeyId: string; CiphertextBlob: Uint8Array; EncryptionContext: EncryptionContext }) => object;
}

/** The package's name in a variable: the compiler does not resolve it (the build needs no optional package). */
const CLIENT_KMS: string = "@aws-sdk/client-kms";

/** @aws-sdk/client-kms is an optional dependency: loaded only when STRONGROOM_SEAL=awskms. */
async function loadSdk(): Promise<KmsSdk> {
  try {
    return (await import(CLIENT_KMS)) as KmsSdk;
  } catch (error) {
    throw new Error(
      "STRONGROOM_SEAL=awskms needs the optional dependency @aws-sdk/client-kms, which is not installed " +
        `(${(error as Error).message}): install it with \`npm install @aws-sdk/client-kms\``,
    );
  }
}

/** What KMS binds each wrapped data key to (and CloudTrail records with each Decrypt): a key offered as another version does not open. */
export const kmsEncryptionContext = (version: number): EncryptionContext => ({
  service: "strongroom",
  purpose: "keyring",
  version: String(version),
});

/**
 * An AWS KMS key (symmetric) wraps the data keys: Encrypt and Decrypt with the key id and an encryption context naming
 * the version. The root key never leaves KMS. Region, credentials and endpoint come from the AWS SDK's own
 * configuration (AWS_REGION, AWS_ACCESS_KEY_ID or a role, AWS_ENDPOINT_URL_KMS).
 */
export async function awsKmsRootWrapper(settings: AwsKmsSettings): Promise<RootWrapper> {
  const { KMSClient, EncryptCommand, DecryptCommand } = await loadSdk();
  const client = new KMSClient({});
  return {
    label: `awskms:${settings.keyId}`,
    async wrap(dataKey, version) {
      let answer;
      try {
        answer = await client.send(
          new EncryptCommand({ KeyId: settings.keyId, Plaintext: dataKey, EncryptionContext: kmsEncryptionContext(version) }),
        );
      } catch (error) {
        throw new Error(`AWS KMS key ${settings.keyId} did not wrap key version ${version} (${(error as Error).message})`);
      }
      if (!answer.CiphertextBlob) throw new Error(`AWS KMS answered no ciphertext for key ${settings.keyId}`);
      return Buffer.from(answer.CiphertextBlob).toString("base64");
    },
    async unwrap(wrapped, version) {
      try {
        const answer = await client.send(
          new DecryptCommand({
            KeyId: settings.keyId,
            CiphertextBlob: Buffer.from(wrapped, "base64"),
            EncryptionContext: kmsEncryptionContext(version),
          }),
        );
        if (!answer.Plaintext) throw new Error("no plaintext in the answer");
        return answer.Plaintext;
      } catch (error) {
        throw new Error(`key version ${version} could not be opened by AWS KMS key ${settings.keyId} (${(error as Error).message})`);
      }
    },
    close: async () => client.destroy(),
  };
}

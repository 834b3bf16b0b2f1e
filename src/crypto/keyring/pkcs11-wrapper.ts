import { randomBytes } from "node:crypto";
import type { Pkcs11Settings } from "../../config.js";
import { wrapContext, type RootWrapper } from "./root-wrapper.js";

type Handle = Buffer;
type Attribute = { type: number; value?: number | boolean | string | Buffer };
type Mechanism = { mechanism: number; parameter?: unknown };

/** What Strongroom uses of a pkcs11js library object (typed here: the package is optional, and the build must not need it). */
interface PKCS11 {
  load(path: string): void;
  close(): void;
  C_Initialize(): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent: boolean): Handle[];
  C_GetTokenInfo(slot: Handle): { label: string };
  C_OpenSession(slot: Handle, flags: number): Handle;
  C_CloseSession(session: Handle): void;
  C_Login(session: Handle, userType: number, pin: string): void;
  C_FindObjectsInit(session: Handle, template: Attribute[]): void;
  C_FindObjects(session: Handle, max: number): Handle[];
  C_FindObjectsFinal(session: Handle): void;
  C_GenerateKey(session: Handle, mechanism: Mechanism, template: Attribute[]): Handle;
  C_EncryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_Encrypt(session: Handle, data: Buffer, out: Buffer): Buffer;
  C_DecryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_Decrypt(session: Handle, data: Buffer, out: Buffer): Buffer;
}

/** pkcs11js's exports that Strongroom uses: the library class and the PKCS#11 constants. */
type Binding = { PKCS11: new () => PKCS11 } & Record<
  | "CKF_SERIAL_SESSION"
  | "CKF_RW_SESSION"
  | "CKU_USER"
  | "CKA_CLASS"
  | "CKO_SECRET_KEY"
  | "CKA_KEY_TYPE"
  | "CKK_AES"
  | "CKA_LABEL"
  | "CKM_AES_KEY_GEN"
  | "CKA_VALUE_LEN"
  | "CKA_TOKEN"
  | "CKA_PRIVATE"
  | "CKA_SENSITIVE"
  | "CKA_EXTRACTABLE"
  | "CKA_ENCRYPT"
  | "CKA_DECRYPT"
  | "CKM_AES_GCM"
  | "CK_PARAMS_AES_GCM",
  number
>;

/** The package's name in a variable: the compiler does not resolve it (the build needs no optional package). */
const PKCS11JS: string = "pkcs11js";

/** pkcs11js is an optional dependency (a native build): loaded only when STRONGROOM_SEAL=pkcs11. */
async function loadBinding(): Promise<Binding> {
  try {
    const loaded = (await import(PKCS11JS)) as Binding & { default?: Binding };
    return loaded.default ?? loaded;
  } catch (error) {
    throw new Error(
      "STRONGROOM_SEAL=pkcs11 needs the optional dependency pkcs11js, which is not installed or did not build here " +
        `(${(error as Error).message}): install it with \`npm install pkcs11js\` (it builds with node-gyp: python3, make, a C++ compiler)`,
    );
  }
}

/**
 * A PKCS#11 library is initialized once per process (C_Initialize is process-wide): the wrappers of one process share
 * it, and the last one closed finalizes it.
 */
const libraries = new Map<string, { module: PKCS11; users: number }>();

function acquireLibrary(lib: Binding, path: string): PKCS11 {
  const held = libraries.get(path);
  if (held) {
    held.users++;
    return held.module;
  }
  const module = new lib.PKCS11();
  try {
    module.load(path);
  } catch (error) {
    throw new Error(`STRONGROOM_PKCS11_MODULE: ${path} could not be loaded (${(error as Error).message})`);
  }
  module.C_Initialize();
  libraries.set(path, { module, users: 1 });
  return module;
}

function releaseLibrary(path: string): void {
  const held = libraries.get(path);
  if (!held || --held.users > 0) return;
  libraries.delete(path);
  held.module.C_Finalize();
  held.module.close();
}

const IV_BYTES = 12;

/**
 * The root key inside a PKCS#11 token (an HSM; SoftHSM2 in the tests): an AES-256 key, sensitive and not extractable,
 * found by its label. The token itself wraps and unwraps the data keys (CKM_AES_GCM, the version as additional data):
 * the root key never enters this process. `create`: the keyring is being created, so a token without the labelled key
 * gets one; otherwise its absence is an error (a lost or replaced token: `strongroom keyring recover`).
 */
export async function pkcs11RootWrapper(settings: Pkcs11Settings, options: { create: boolean }): Promise<RootWrapper> {
  const lib = await loadBinding();
  const module = acquireLibrary(lib, settings.module);
  const token = JSON.stringify(settings.tokenLabel);
  const keyLabel = JSON.stringify(settings.keyLabel);
  let session: Handle | undefined;
  try {
    const slot = module.C_GetSlotList(true).find((s) => module.C_GetTokenInfo(s).label.trim() === settings.tokenLabel);
    if (!slot) throw new Error(`STRONGROOM_PKCS11_TOKEN_LABEL: no token labelled ${token} in ${settings.module}`);
    session = module.C_OpenSession(slot, lib.CKF_SERIAL_SESSION | lib.CKF_RW_SESSION);
    try {
      module.C_Login(session, lib.CKU_USER, settings.pin);
    } catch (error) {
      // A login is the token's, for the whole process: another wrapper of this process may have logged in already.
      const code = (error as Error).message;
      // The binding's message is the return value's name (CKR_PIN_INCORRECT, CKR_PIN_LOCKED, …): never the PIN.
      if (!code.includes("CKR_USER_ALREADY_LOGGED_IN"))
        throw new Error(`STRONGROOM_PKCS11_PIN: the token ${token} refused the PIN (${code})`);
    }
    const rootKey = findOrCreateKey(lib, module, session, settings, options.create);
    const gcm = (iv: Buffer, version: number) => ({
      mechanism: lib.CKM_AES_GCM,
      parameter: { type: lib.CK_PARAMS_AES_GCM, iv, aad: Buffer.from(wrapContext(version)), ivBits: IV_BYTES * 8, tagBits: 128 },
    });
    const open = session;
    return {
      label: `pkcs11:${settings.tokenLabel}/${settings.keyLabel}`,
      async wrap(dataKey, version) {
        const iv = randomBytes(IV_BYTES);
        module.C_EncryptInit(open, gcm(iv, version), rootKey);
        const sealed = module.C_Encrypt(open, Buffer.from(dataKey), Buffer.alloc(dataKey.length + 16));
        return Buffer.concat([iv, sealed]).toString("base64");
      },
      async unwrap(wrapped, version) {
        const bytes = Buffer.from(wrapped, "base64");
        try {
          module.C_DecryptInit(open, gcm(bytes.subarray(0, IV_BYTES), version), rootKey);
          return new Uint8Array(module.C_Decrypt(open, bytes.subarray(IV_BYTES), Buffer.alloc(bytes.length)));
        } catch (error) {
          throw new Error(`key version ${version} could not be opened by key ${keyLabel} of token ${token} (${(error as Error).message})`);
        }
      },
      async close() {
        try {
          module.C_CloseSession(open);
        } finally {
          releaseLibrary(settings.module);
        }
      },
    };
  } catch (error) {
    if (session) module.C_CloseSession(session);
    releaseLibrary(settings.module);
    throw error;
  }
}

function findOrCreateKey(lib: Binding, module: PKCS11, session: Handle, settings: Pkcs11Settings, create: boolean): Handle {
  const template = [
    { type: lib.CKA_CLASS, value: lib.CKO_SECRET_KEY },
    { type: lib.CKA_KEY_TYPE, value: lib.CKK_AES },
    { type: lib.CKA_LABEL, value: settings.keyLabel },
  ];
  module.C_FindObjectsInit(session, template);
  const found = module.C_FindObjects(session, 2);
  module.C_FindObjectsFinal(session);
  const where = `token ${JSON.stringify(settings.tokenLabel)}`;
  if (found.length > 1)
    throw new Error(`STRONGROOM_PKCS11_KEY_LABEL: ${where} holds several AES keys labelled ${JSON.stringify(settings.keyLabel)}`);
  if (found[0]) return found[0];
  if (!create) {
    throw new Error(
      `STRONGROOM_PKCS11_KEY_LABEL: ${where} holds no AES key labelled ${JSON.stringify(settings.keyLabel)}, which wraps this store's keyring ` +
        "(a lost or replaced token: `strongroom keyring recover` with the recovery shares wraps the keyring anew)",
    );
  }
  return module.C_GenerateKey(session, { mechanism: lib.CKM_AES_KEY_GEN }, [
    ...template,
    { type: lib.CKA_VALUE_LEN, value: 32 },
    { type: lib.CKA_TOKEN, value: true },
    { type: lib.CKA_PRIVATE, value: true },
    { type: lib.CKA_SENSITIVE, value: true },
    { type: lib.CKA_EXTRACTABLE, value: false },
    { type: lib.CKA_ENCRYPT, value: true },
    { type: lib.CKA_DECRYPT, value: true },
  ]);
}

import { entropyToMnemonic, generateMnemonic as generateBip39Mnemonic, mnemonicToEntropy, validateMnemonic } from "@scure/bip39";
import { wordlist as czech } from "@scure/bip39/wordlists/czech.js";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { wordlist as french } from "@scure/bip39/wordlists/french.js";
import { wordlist as italian } from "@scure/bip39/wordlists/italian.js";
import { wordlist as japanese } from "@scure/bip39/wordlists/japanese.js";
import { wordlist as korean } from "@scure/bip39/wordlists/korean.js";
import { wordlist as simplifiedChinese } from "@scure/bip39/wordlists/simplified-chinese.js";
import { wordlist as spanish } from "@scure/bip39/wordlists/spanish.js";
import { wordlist as traditionalChinese } from "@scure/bip39/wordlists/traditional-chinese.js";
import { pbkdf2 } from "node:crypto";
import { promisify } from "node:util";

export const MNEMONIC_LENGTHS = [12, 15, 18, 21, 24] as const;

export const WORDLISTS = {
  MNEMONIC_LANGUAGE_ENGLISH: english,
  MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE: simplifiedChinese,
  MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE: traditionalChinese,
  MNEMONIC_LANGUAGE_CZECH: czech,
  MNEMONIC_LANGUAGE_FRENCH: french,
  MNEMONIC_LANGUAGE_ITALIAN: italian,
  MNEMONIC_LANGUAGE_JAPANESE: japanese,
  MNEMONIC_LANGUAGE_KOREAN: korean,
  MNEMONIC_LANGUAGE_SPANISH: spanish,
} as const;

export type MnemonicLanguage = keyof typeof WORDLISTS;
export const MNEMONIC_LANGUAGES = Object.keys(WORDLISTS) as MnemonicLanguage[];

export class InvalidMnemonicError extends Error {}

/**
 * A wallet's secret as stored (sealed): the mnemonic, optionally followed by a newline and a
 * BIP-39 passphrase — the form export bundles carry and import bundles may bring.
 */
export interface WalletSecret {
  mnemonic: string;
  passphrase: string;
}

/** A new English mnemonic of `length` words from the CSPRNG (12 words = 128 bits of entropy). */
export function generateMnemonic(length: number): string {
  return generateBip39Mnemonic(english, (length / 3) * 32);
}

export function parseWalletSecret(text: string): WalletSecret {
  const newline = text.indexOf("\n");
  const mnemonic = (newline < 0 ? text : text.slice(0, newline)).trim().normalize("NFKD").split(/\s+/u).join(" ");
  const passphrase = newline < 0 ? "" : text.slice(newline + 1);
  if (!MNEMONIC_LENGTHS.includes(mnemonic.split(" ").length as (typeof MNEMONIC_LENGTHS)[number])) {
    throw new InvalidMnemonicError(`a mnemonic has 12, 15, 18, 21 or 24 words, not ${mnemonic.split(" ").length}`);
  }
  if (!languageOf(mnemonic))
    throw new InvalidMnemonicError("the mnemonic is not a valid BIP-39 mnemonic in any supported language (wrong word or checksum)");
  return { mnemonic, passphrase };
}

function languageOf(mnemonic: string): MnemonicLanguage | undefined {
  return MNEMONIC_LANGUAGES.find((language) => validateMnemonic(mnemonic, WORDLISTS[language]));
}

const pbkdf2Async = promisify(pbkdf2);

/**
 * The BIP-39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase — node's native PBKDF2 on
 * libuv's thread pool, off the event loop.
 */
export async function walletSeedAsync({ mnemonic, passphrase }: WalletSecret): Promise<Uint8Array> {
  return new Uint8Array(await pbkdf2Async(mnemonic.normalize("NFKD"), `mnemonic${passphrase}`.normalize("NFKD"), 2048, 64, "sha512"));
}

/** The same entropy in another language's words (a different mnemonic, as BIP-39 defines). */
export function mnemonicIn(mnemonic: string, language: MnemonicLanguage): string {
  const current = languageOf(mnemonic);
  if (!current) throw new InvalidMnemonicError("stored mnemonic is not valid BIP-39");
  if (current === language) return mnemonic;
  return entropyToMnemonic(mnemonicToEntropy(mnemonic, WORDLISTS[current]), WORDLISTS[language]);
}

import { p256 } from "@noble/curves/nist.js";
import { Type, type Static } from "@sinclair/typebox";
import { createHmac, randomBytes, randomInt, randomUUID, timingSafeEqual } from "node:crypto";
import { failedPrecondition, invalidArgument, notFound, resourceExhausted, unauthenticated } from "../../errors.js";
import { Int64String } from "../../schema/common.js";
import { checkBudget, spendBudget, takeFromBudget, type Budget } from "../../rate-limits/budget.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../../operations/activity-definition.js";
import { requireFeature } from "../organizations/features.js";
import { deliver, otpMessage } from "./otp-messages.js";
import { checkEmail, checkPhoneNumber } from "../users/users.js";

/** The API's documented OTP rules (semantics §4.4, §10). */
export const OTP_RULES = {
  minLength: 6,
  maxLength: 9,
  defaultLength: 9,
  defaultSeconds: 300,
  maxSeconds: 600,
  attemptsPerCode: 3,
  activeCodesPerContact: 3,
  requestsPerUserIdentifier: 3,
  userIdentifierWindowSeconds: 180,
} as const;

/** Crockford's base32 alphabet: no I, L, O or U, so codes read aloud and typed back unambiguously. */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DIGITS = "0123456789";

export const OTP_TYPES = ["OTP_TYPE_EMAIL", "OTP_TYPE_SMS", "OTP_TYPE_WHATSAPP"] as const;
export type OtpType = (typeof OTP_TYPES)[number];

export const EmailCustomization = Type.Object({
  logoUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  magicLinkTemplate: Type.Optional(Type.String({ maxLength: 2048 })),
  templateVariables: Type.Optional(Type.String({ maxLength: 10_000 })),
  templateId: Type.Optional(Type.String({ maxLength: 256 })),
});

export const SenderParams = {
  sendFromEmailAddress: Type.Optional(Type.String({ maxLength: 320 })),
  sendFromEmailSenderName: Type.Optional(Type.String({ maxLength: 256 })),
  replyToEmailAddress: Type.Optional(Type.String({ maxLength: 320 })),
};

/** init_otp (V3) and init_otp_auth (V3) take the same parameters. */
export const InitOtpParams = Type.Object({
  otpType: Type.String({ minLength: 1 }),
  contact: Type.String({ minLength: 1, maxLength: 320 }),
  appName: Type.String({ minLength: 1, maxLength: 256 }),
  otpLength: Type.Optional(Type.Integer()),
  emailCustomization: Type.Optional(EmailCustomization),
  smsCustomization: Type.Optional(Type.Object({ template: Type.Optional(Type.String({ maxLength: 1000 })) })),
  userIdentifier: Type.Optional(Type.String({ maxLength: 256 })),
  alphanumeric: Type.Optional(Type.Boolean()),
  expirationSeconds: Type.Optional(Int64String()),
  ...SenderParams,
});
export type InitOtpInput = Static<typeof InitOtpParams>;

/** Which flow a code belongs to: init_otp → verify_otp, or the legacy init_otp_auth → otp_auth. */
export type OtpFlow = "OTP" | "OTP_AUTH";

const FEATURE_BY_TYPE: Record<OtpType, { feature: string; flag: string }> = {
  OTP_TYPE_EMAIL: { feature: "FEATURE_NAME_OTP_EMAIL_AUTH", flag: "disableOtpEmailAuth" },
  OTP_TYPE_SMS: { feature: "FEATURE_NAME_SMS_AUTH", flag: "disableSmsAuth" },
  OTP_TYPE_WHATSAPP: { feature: "FEATURE_NAME_SMS_AUTH", flag: "disableSmsAuth" },
};

function field(name: string, why: string) {
  return invalidArgument(`${name}: ${why}`, [{ field: name, description: why }]);
}

export function lifetimeSeconds(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const seconds = Number(value);
  if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > max)
    throw field(name, `${JSON.stringify(value)} must be a whole number of seconds from 1 to ${max}`);
  return seconds;
}

export function generateCode(length: number, alphanumeric: boolean): string {
  const alphabet = alphanumeric ? CROCKFORD : DIGITS;
  let code = "";
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** How a typed code is read: case-insensitive, with Crockford's aliases (I and L are 1, O is 0). */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** Each code has its own secret: 32 bytes of HMAC key, then (flow OTP) the 32-byte HPKE target private key. */
interface CodeSecret {
  hmacKey: Uint8Array;
  targetPrivateKey: Uint8Array;
}

function codeHmac(hmacKey: Uint8Array, code: string): string {
  return createHmac("sha256", hmacKey).update(normalizeCode(code), "utf8").digest("hex");
}

const secretContext = (otpId: string) => `otp:${otpId}`;

export interface IssuedOtp {
  otpId: string;
  /** Uncompressed hex of the code's own P-256 key, the client encrypts the code to (flow OTP). */
  targetPublicKeyHex: string;
}

/**
 * An init_otp / init_otp_auth request's input checks (its `validate`), answering the values it stands for:
 * the OTP type, the contact (trimmed), the code's length and lifetime.
 */
export function checkInitOtp(params: InitOtpInput): { otpType: OtpType; contact: string; length: number; seconds: number } {
  if (!(OTP_TYPES as readonly string[]).includes(params.otpType)) throw field("otpType", `must be one of ${OTP_TYPES.join(", ")}`);
  const otpType = params.otpType as OtpType;
  const contact = params.contact.trim();
  if (otpType === "OTP_TYPE_EMAIL") checkEmail(contact, "contact");
  else checkPhoneNumber(contact, "contact");
  const length = params.otpLength ?? OTP_RULES.defaultLength;
  if (length < OTP_RULES.minLength || length > OTP_RULES.maxLength)
    throw field("otpLength", `${length} is not from ${OTP_RULES.minLength} to ${OTP_RULES.maxLength}`);
  const seconds = lifetimeSeconds(params.expirationSeconds, "expirationSeconds", OTP_RULES.defaultSeconds, OTP_RULES.maxSeconds);
  const template = params.smsCustomization?.template;
  if (template !== undefined && template !== "" && !template.includes("{{.OtpCode}}"))
    throw field("smsCustomization.template", "must contain {{.OtpCode}}, where the code goes");
  if (params.sendFromEmailAddress) checkEmail(params.sendFromEmailAddress, "sendFromEmailAddress");
  if (params.replyToEmailAddress) checkEmail(params.replyToEmailAddress, "replyToEmailAddress");
  return { otpType, contact, length, seconds };
}

/**
 * Checks an init_otp / init_otp_auth request (its input checked by checkInitOtp) against the organization's
 * features, the configured channels and the rate limits, stores the code's HMAC (never the code) and sends
 * the code once the activity commits.
 */
export async function issueOtp(ctx: ActivityContext, params: InitOtpInput, flow: OtpFlow): Promise<IssuedOtp> {
  const { tx, organization, now, services } = ctx;
  const { otpType, contact, length, seconds } = checkInitOtp(params);
  const { feature, flag } = FEATURE_BY_TYPE[otpType];
  requireFeature(organization, feature, flag);
  requireChannel(ctx, otpType);

  if (params.userIdentifier) {
    const since = new Date(now.getTime() - OTP_RULES.userIdentifierWindowSeconds * 1000);
    const [recent] = await tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM otp_codes WHERE organization_id = $1 AND user_identifier = $2 AND created_at > $3",
      [organization.id, params.userIdentifier, since],
    );
    if (recent!.n >= OTP_RULES.requestsPerUserIdentifier) {
      throw resourceExhausted(
        `userIdentifier: at most ${OTP_RULES.requestsPerUserIdentifier} codes per ${OTP_RULES.userIdentifierWindowSeconds / 60} minutes for one userIdentifier; try again later`,
        "RATE_LIMIT_EXCEEDED",
      );
    }
  }
  const [active] = await tx.query<{ n: number; next_expiry: Date | null }>(
    `SELECT count(*)::int AS n, min(expires_at) AS next_expiry FROM otp_codes
     WHERE organization_id = $1 AND lower(contact) = lower($2) AND used_at IS NULL AND attempts < $3 AND expires_at > $4`,
    [organization.id, contact, OTP_RULES.attemptsPerCode, now],
  );
  if (active!.n >= OTP_RULES.activeCodesPerContact) {
    throw resourceExhausted(
      `contact: ${contact} already has ${active!.n} active codes in organization ${organization.id} (at most ${OTP_RULES.activeCodesPerContact}); use one, or wait until ${new Date(active!.next_expiry!).toISOString()}`,
      "RATE_LIMIT_EXCEEDED",
    );
  }

  await takeFromBudget(tx, codesPerContact(ctx, contact), now);

  const otpId = randomUUID();
  const code = generateCode(length, params.alphanumeric ?? true);
  const secret: CodeSecret = { hmacKey: randomBytes(32), targetPrivateKey: p256.utils.randomSecretKey() };
  await tx.query(
    `INSERT INTO otp_codes (id, organization_id, flow, otp_type, contact, user_identifier, sealed_secret, code_hmac, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      otpId,
      organization.id,
      flow,
      otpType,
      contact,
      params.userIdentifier ?? null,
      services.kek.seal(new Uint8Array([...secret.hmacKey, ...secret.targetPrivateKey]), secretContext(otpId)),
      codeHmac(secret.hmacKey, code),
      new Date(now.getTime() + seconds * 1000),
      now,
    ],
  );
  const message = otpMessage({ otpType, contact, code, appName: params.appName, seconds, params });
  ctx.afterCommit(() => deliver(services.messaging, message));
  return { otpId, targetPublicKeyHex: Buffer.from(p256.getPublicKey(secret.targetPrivateKey, false)).toString("hex") };
}

/** One contact of one organization, as the OTP budgets key it (contacts compare case-insensitively). */
const contactKey = (organizationId: string, contact: string) => `${organizationId}:${contact.trim().toLowerCase()}`;

/**
 * Codes issued to a contact, used or not: "3 active codes per contact" alone let a caller who uses or locks
 * each code ask for another at once.
 */
function codesPerContact(ctx: Pick<ActivityContext, "organization" | "services">, contact: string): Budget {
  const { limits } = ctx.services;
  return {
    key: `otp-codes:${contactKey(ctx.organization.id, contact)}`,
    limit: limits.otpCodesPerContact,
    windowSeconds: limits.otpWindowSeconds,
    describe: `codes per contact (${contact} in organization ${ctx.organization.id})`,
  };
}

/**
 * Wrong codes tried for a contact, whatever codes they were spread over. A code locks after 3 wrong
 * guesses, but a fresh code gave 3 more: without this budget, init + 3 guesses in a loop guessed freely.
 */
function wrongGuessesPerContact(ctx: Pick<ActivityContext, "organization" | "services">, contact: string): Budget {
  const { limits } = ctx.services;
  return {
    key: `otp-guesses:${contactKey(ctx.organization.id, contact)}`,
    limit: limits.otpWrongGuessesPerContact,
    windowSeconds: limits.otpWindowSeconds,
    describe: `wrong guesses at the codes of contact ${contact} in organization ${ctx.organization.id}`,
  };
}

/**
 * The lock verify_otp and otp_auth take before their handler runs (`lockKey`): one per contact, so that
 * concurrent guesses at any of a contact's codes, on any process, run one after another and each sees the
 * attempts and the wrong-guess budget the ones before it spent.
 */
export async function otpGuessLockKey(tx: Queryable, otpId: string): Promise<string> {
  const [row] = await tx.query<{ organization_id: string; contact: string }>(
    "SELECT organization_id, contact FROM otp_codes WHERE id = $1",
    [otpId],
  );
  return row ? `otp-guess:${contactKey(row.organization_id, row.contact)}` : `otp:${otpId}`;
}

/**
 * The public half of a code's target key (what its otpEncryptionTargetBundle carries), found by the code's
 * primary key — for the auth proxy's legacy otp_verify, which encrypts a plain code to it.
 */
export async function otpTargetPublicKey(
  db: Queryable,
  services: Pick<ActivityContext["services"], "kek">,
  organizationId: string,
  otpId: string,
): Promise<string | undefined> {
  const [row] = await db.query<{ sealed_secret: string }>(
    "SELECT sealed_secret FROM otp_codes WHERE id = $1 AND organization_id = $2 AND flow = 'OTP'",
    [otpId, organizationId],
  );
  if (!row) return undefined;
  const targetPrivateKey = services.kek.open(row.sealed_secret, secretContext(otpId)).slice(32, 64);
  return Buffer.from(p256.getPublicKey(targetPrivateKey, false)).toString("hex");
}

/** A channel that is not configured is refused before anything is stored or sent. */
export function requireChannel(ctx: Pick<ActivityContext, "services">, otpType: OtpType): void {
  if (otpType === "OTP_TYPE_EMAIL" && !ctx.services.messaging.email) {
    throw failedPrecondition(
      "email delivery is not configured on this server: set SMTP_URL (e.g. smtp://user:pass@host:587) to send email",
      "MESSAGING_NOT_CONFIGURED",
    );
  }
  if (otpType !== "OTP_TYPE_EMAIL" && !ctx.services.messaging.text) {
    throw failedPrecondition(
      "SMS and WhatsApp delivery is not configured on this server: set SMS_WEBHOOK_URL to an HTTP endpoint that sends them",
      "MESSAGING_NOT_CONFIGURED",
    );
  }
}

interface OtpRow {
  id: string;
  organization_id: string;
  otp_type: OtpType;
  contact: string;
  sealed_secret: string;
  code_hmac: string;
  attempts: number;
  expires_at: Date;
  used_at: Date | null;
}

export interface PendingOtp {
  row: OtpRow;
  targetPrivateKey: Uint8Array;
  /** Compares a submitted code; the code is consumed if it matches, the attempt counted if not (see below). */
  check(code: string): Promise<void>;
}

/**
 * Finds an unused, unexpired, unlocked code of this organization for verify_otp / otp_auth.
 *
 * A wrong guess fails the activity, and a failed activity's writes are rolled back — so counting the
 * attempt in the handler would undo itself and allow unlimited guesses. The count is therefore recorded
 * with `keepOnFailure`, which the engine applies in the same transaction after the rollback, next to the
 * FAILED activity; and these activities declare `lockKey` (the code's contact), so concurrent guesses at one code
 * run one after another and each sees the attempts before it (a row lock taken inside the handler would
 * be released by the rollback and let a waiting guess through before the attempt is counted). The lock is
 * per contact (`otpGuessLockKey`), so the contact's wrong-guess budget is exact across codes and processes.
 */
export async function pendingOtp(ctx: ActivityContext, otpId: string, flow: OtpFlow): Promise<PendingOtp> {
  const { tx, organization, now, services } = ctx;
  const [row] = await tx.query<OtpRow>("SELECT * FROM otp_codes WHERE id = $1 AND organization_id = $2 AND flow = $3", [
    otpId,
    organization.id,
    flow,
  ]);
  const init = flow === "OTP" ? "init_otp" : "init_otp_auth";
  if (!row) throw notFound(`otpId: no ${init} code ${JSON.stringify(otpId)} in organization ${organization.id}`, "OTP_NOT_FOUND");
  if (row.used_at) throw failedPrecondition(`otpId: code ${otpId} was already used; request a new one with ${init}`, "OTP_ALREADY_USED");
  if (row.attempts >= OTP_RULES.attemptsPerCode) {
    throw failedPrecondition(
      `otpId: code ${otpId} is locked after ${OTP_RULES.attemptsPerCode} wrong attempts; request a new one with ${init}`,
      "OTP_LOCKED",
    );
  }
  if (new Date(row.expires_at).getTime() <= now.getTime()) {
    throw failedPrecondition(
      `otpId: code ${otpId} expired at ${new Date(row.expires_at).toISOString()}; request a new one with ${init}`,
      "OTP_EXPIRED",
    );
  }
  const guesses = wrongGuessesPerContact(ctx, row.contact);
  await checkBudget(tx, guesses, now);
  const secret = services.kek.open(row.sealed_secret, secretContext(row.id));
  const hmacKey = secret.slice(0, 32);
  return {
    row,
    targetPrivateKey: secret.slice(32, 64),
    async check(code: string) {
      const expected = Buffer.from(row.code_hmac, "hex");
      const given = Buffer.from(codeHmac(hmacKey, code), "hex");
      if (!timingSafeEqual(expected, given)) {
        ctx.keepOnFailure(async (keep) => {
          await keep.query("UPDATE otp_codes SET attempts = attempts + 1 WHERE id = $1", [row.id]);
          await spendBudget(keep, guesses.key, now);
        });
        const left = OTP_RULES.attemptsPerCode - row.attempts - 1;
        throw unauthenticated(
          `otp code for ${otpId} is incorrect; ${left > 0 ? `${left} attempt${left === 1 ? "" : "s"} left` : "the code is now locked; request a new one"}`,
          "OTP_CODE_INVALID",
        );
      }
      await tx.query("UPDATE otp_codes SET used_at = $2, attempts = attempts + 1 WHERE id = $1", [row.id, now]);
    },
  };
}

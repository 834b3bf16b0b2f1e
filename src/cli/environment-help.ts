/**
 * The environment variables Strongroom reads, for `--help` (docs/operations.md#configuration has the same list
 * with defaults and details; test/cli/help.test.ts keeps the two in step).
 */
const VARIABLES: [group: string, names: string[]][] = [
  [
    "listening",
    ["HOST", "PORT", "AUTH_PROXY_PORT", "METRICS_PORT", "STRONGROOM_WORKERS", "STRONGROOM_PUBLIC_URL", "TRUST_PROXY", "FRAME_ANCESTORS"],
  ],
  [
    "storage and keys",
    [
      "STRONGROOM_DATA_DIR",
      "DATABASE_URL",
      "DATABASE_URL_FILE",
      "DATABASE_SCHEMA",
      "DATABASE_WAIT_SECONDS",
      "DATABASE_POOL_SIZE",
      "PGLITE_SHARED_BUFFERS",
      "STRONGROOM_MASTER_KEY",
      "STRONGROOM_MASTER_KEY_FILE",
      "STRONGROOM_NEW_MASTER_KEY",
      "STRONGROOM_NO_INIT",
    ],
  ],
  [
    "seal and keyring",
    [
      "STRONGROOM_SEAL",
      "STRONGROOM_PKCS11_MODULE",
      "STRONGROOM_PKCS11_TOKEN_LABEL",
      "STRONGROOM_PKCS11_PIN",
      "STRONGROOM_PKCS11_PIN_FILE",
      "STRONGROOM_PKCS11_KEY_LABEL",
      "STRONGROOM_AWSKMS_KEY_ID",
      "STRONGROOM_KEYRING_POLL_MS",
    ],
  ],
  ["logs and errors", ["LOG_LEVEL", "LOG_FORMAT", "STRONGROOM_ERROR_MESSAGES", "STRONGROOM_BODY_LIMIT_BYTES"]],
  ["email and SMS", ["SMTP_URL", "SMTP_FROM", "SMS_WEBHOOK_URL"]],
  [
    "OAuth and OIDC",
    [
      "OIDC_ISSUERS",
      "OAUTH2_TIMEOUT_MS",
      "OAUTH2_X_TOKEN_URL",
      "OAUTH2_X_USERINFO_URL",
      "OAUTH2_DISCORD_TOKEN_URL",
      "OAUTH2_DISCORD_USERINFO_URL",
    ],
  ],
  [
    "webhooks and chains",
    [
      "STRONGROOM_WEBHOOK_ALLOW_PRIVATE",
      "STRONGROOM_WEBHOOK_POLL_MS",
      "STRONGROOM_WEBHOOK_RETRY_BASE_MS",
      "STRONGROOM_WEBHOOK_MAX_ATTEMPTS",
      "STRONGROOM_WEBHOOK_TIMEOUT_MS",
      "CHAIN_RPC_URLS",
      "CHAIN_ASSETS",
      "CHAIN_RPC_TIMEOUT_MS",
      "CHAIN_BROADCAST_POLL_MS",
      "CHAIN_REBROADCAST_MS",
      "EVM_RPC_URL",
      "EVM_POLL_MS",
      "EVM_FINALITY_DEPTH",
    ],
  ],
  [
    "audit log",
    [
      "STRONGROOM_AUDIT",
      "STRONGROOM_AUDIT_QUERIES",
      "STRONGROOM_AUDIT_CHECKPOINT_SECONDS",
      "STRONGROOM_AUDIT_POLL_MS",
      "STRONGROOM_AUDIT_REFUSALS_PER_MINUTE",
    ],
  ],
  [
    "budgets",
    [
      "OTP_WRONG_GUESSES_PER_CONTACT",
      "OTP_CODES_PER_CONTACT",
      "OTP_CODES_PER_ADDRESS",
      "OTP_RATE_WINDOW_SECONDS",
      "AUTH_PROXY_REQUESTS_PER_ADDRESS",
      "AUTH_PROXY_REQUESTS_PER_CONFIG",
      "AUTH_PROXY_RATE_WINDOW_SECONDS",
      "AUTH_PROXY_SIGNUP_MAX_WALLET_ACCOUNTS",
    ],
  ],
  [
    "strongroom dev",
    ["ORGANIZATION_ID", "API_PRIVATE_KEY", "API_PUBLIC_KEY", "STRONGROOM_SEED", "STRONGROOM_DEV_ALLOWED_HOSTS", "STRONGROOM_ENV_PREFIX"],
  ],
];

export const ENVIRONMENT_VARIABLES = VARIABLES.flatMap(([, names]) => names);

const INDENT = 24;
const WIDTH = 110;

/** One group: its name, then its variables wrapped under each other. */
function groupLines(group: string, names: string[]): string {
  const lines: string[] = [];
  let line = `  ${group}:`.padEnd(INDENT);
  for (const [i, name] of names.entries()) {
    const item = name + (i < names.length - 1 ? "," : "");
    if (line.trim().length > group.length + 1 && line.length + item.length + 1 > WIDTH) {
      lines.push(line.trimEnd());
      line = " ".repeat(INDENT);
    }
    line += (line.endsWith(" ") ? "" : " ") + item;
  }
  lines.push(line);
  return lines.join("\n");
}

export const environmentHelp = (): string =>
  "\nEnvironment variables (flags win over them; defaults and meanings: docs/operations.md#configuration):\n" +
  VARIABLES.map(([group, names]) => groupLines(group, names)).join("\n") +
  "\n";

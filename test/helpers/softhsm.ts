import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./processes.js";

export const SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so";
export const TOKEN_PIN = "4826-1937";

const pkcs11jsLoads = (() => {
  try {
    createRequire(import.meta.url)("pkcs11js");
    return true;
  } catch {
    return false;
  }
})();

/** Why the PKCS#11 tests cannot run here (said once, by the file that skips), or undefined when they can. */
export const softhsmMissing: string | undefined = !existsSync(SOFTHSM_MODULE)
  ? `SoftHSM2 is not installed (${SOFTHSM_MODULE}; apt-get install softhsm2, as .ci/run does)`
  : !pkcs11jsLoads
    ? "the optional dependency pkcs11js is not installed, or did not build"
    : undefined;

/**
 * A SoftHSM2 token directory of the test's own (SOFTHSM2_CONF points at its configuration, in this process's
 * environment, so the servers and CLI processes it starts see the same tokens).
 */
export function softhsmDirectory(): { conf: string; newToken(label: string): void; drop(): void } {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-softhsm-"));
  const conf = join(dir, "softhsm2.conf");
  writeFileSync(conf, `directories.tokendir = ${join(dir, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  const previous = process.env.SOFTHSM2_CONF;
  process.env.SOFTHSM2_CONF = conf;
  return {
    conf,
    /** Replaces every token by one fresh token `label` (user PIN TOKEN_PIN): what a lost token leaves. */
    newToken(label) {
      rmSync(join(dir, "tokens"), { recursive: true, force: true });
      mkdirSync(join(dir, "tokens"));
      const init = spawnSync("softhsm2-util", ["--init-token", "--free", "--label", label, "--pin", TOKEN_PIN, "--so-pin", "5678"], {
        encoding: "utf8",
      });
      if (init.status !== 0) throw new Error(`softhsm2-util: ${init.stderr}`);
    },
    drop() {
      if (previous === undefined) delete process.env.SOFTHSM2_CONF;
      else process.env.SOFTHSM2_CONF = previous;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The attributes of the token's keys labelled `keyLabel`, read through PKCS#11 in a process of its own (a PKCS#11
 * library is initialized once per process, and a server in this one may hold it): how many there are, CKA_SENSITIVE,
 * CKA_EXTRACTABLE, and what reading CKA_VALUE answers.
 */
export function keyAttributes(
  tokenLabel: string,
  keyLabel: string,
): { keys: number; sensitive: boolean; extractable: boolean; readingValue: string } {
  const script = `
    const lib = require("pkcs11js");
    const [module_, tokenLabel, keyLabel, pin] = process.argv.slice(1);
    const p = new lib.PKCS11();
    p.load(module_);
    p.C_Initialize();
    try {
      const slot = p.C_GetSlotList(true).find((s) => p.C_GetTokenInfo(s).label.trim() === tokenLabel);
      const session = p.C_OpenSession(slot, lib.CKF_SERIAL_SESSION);
      p.C_Login(session, lib.CKU_USER, pin);
      p.C_FindObjectsInit(session, [{ type: lib.CKA_LABEL, value: keyLabel }]);
      const keys = p.C_FindObjects(session, 10);
      p.C_FindObjectsFinal(session);
      const [sensitive, extractable] = p.C_GetAttributeValue(session, keys[0], [{ type: lib.CKA_SENSITIVE }, { type: lib.CKA_EXTRACTABLE }]);
      let readingValue = "readable";
      try { p.C_GetAttributeValue(session, keys[0], [{ type: lib.CKA_VALUE }]); } catch (error) { readingValue = error.message; }
      console.log(JSON.stringify({ keys: keys.length, sensitive: sensitive.value[0] === 1, extractable: extractable.value[0] === 1, readingValue }));
    } finally {
      p.C_Finalize();
    }`;
  const run = spawnSync(process.execPath, ["-e", script, SOFTHSM_MODULE, tokenLabel, keyLabel, TOKEN_PIN], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`reading the key's attributes failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as ReturnType<typeof keyAttributes>;
}

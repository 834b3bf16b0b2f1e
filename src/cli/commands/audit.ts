import { Command } from "commander";
import { existsSync } from "node:fs";
import { resolveConfig } from "../../config.js";
import { exportLog, EXPORT_FILES, type ExportRecord } from "../../audit/export.js";
import { verifyExportDirectory, writeExportDirectory } from "../../audit/export-directory.js";
import { integrationSettings } from "../../audit/integrator.js";
import { LogProblem } from "../../audit/verify.js";
import { openServices } from "../../open-services.js";
import { auditExportThroughControlSocket, controlSocketPath } from "../../server/control-socket.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { dataDirOption, fail } from "./data-dir-option.js";

/** The log's records: from the server running on the embedded store (its control socket), or read from the store here. */
async function exportRecords(dataDir: string, write: (records: AsyncIterable<ExportRecord>) => Promise<unknown>): Promise<void> {
  const config = resolveConfig({ dataDir });
  let services;
  try {
    services = await openServices(config);
  } catch (error) {
    if (!(error instanceof DataDirInUseError && existsSync(controlSocketPath(config.dataDir)))) throw error;
    const records = await auditExportThroughControlSocket(config.dataDir);
    if (!records) throw new Error(`could not reach the server holding ${config.dataDir}; stop it and run the export again`);
    await write(records);
    return;
  }
  try {
    await write(exportLog(services.db, services.audit.keys, integrationSettings(config.audit)));
  } finally {
    await services.db.close();
  }
}

export function auditCommand(): Command {
  const audit = new Command("audit").description(
    "the tamper-evident audit log: export it with its signed checkpoints, and verify an export offline (docs/operations.md, Audit log)",
  );
  audit
    .command("export")
    .description(
      `write the audit log to --out DIR: ${EXPORT_FILES.entries} (every entry, one a line, up to the latest checkpoint), ` +
        `${EXPORT_FILES.checkpoints} (every signed checkpoint), ${EXPORT_FILES.latest} (the latest, to keep elsewhere) and ${EXPORT_FILES.key} ` +
        "(the checkpoint key). Works while a server runs: on the embedded store through its control socket",
    )
    .requiredOption("--out <dir>", "the directory to write (created; existing export files are never replaced)")
    .addOption(dataDirOption())
    .action(async (flags: { out: string; dataDir: string }) => {
      try {
        let counts = { entries: 0, checkpoints: 0 };
        await exportRecords(flags.dataDir, async (records) => (counts = await writeExportDirectory(flags.out, records)));
        process.stdout.write(JSON.stringify({ out: flags.out, ...counts }, null, 2) + "\n");
      } catch (error) {
        fail(error);
      }
    });
  audit
    .command("verify")
    .description(
      "verify an export offline: every entry's index and hash, every checkpoint's signature and root, and (--checkpoint) that the log " +
        "extends a checkpoint kept elsewhere. Exits 0 when all of it holds; otherwise 1, printing one line naming the first problem " +
        "(gap, edit, reorder, deletion, bad signature, inconsistent checkpoint, unsigned) and its index; 2 when the export cannot be read",
    )
    .argument("<dir>", "a directory written by `strongroom audit export`")
    .option("--key <key>", "the checkpoint key kept elsewhere: the verifier key itself (<name>+<id>+<key>) or a file holding it")
    .option("--checkpoint <file>", "a checkpoint kept elsewhere (an earlier export's `checkpoint` file): the log must extend it")
    .action(async (dir: string, flags: { key?: string; checkpoint?: string }) => {
      try {
        const verified = await verifyExportDirectory(dir, flags, (message) =>
          process.stderr.write(`strongroom audit verify: ${message}\n`),
        );
        process.stdout.write(
          `ok: ${verified.size} entries, ${verified.checkpoints} checkpoint sizes; root ${Buffer.from(verified.root).toString("base64")}` +
            (flags.checkpoint !== undefined ? "; it extends the checkpoint kept elsewhere" : "") +
            "\n",
        );
      } catch (error) {
        if (!(error instanceof LogProblem)) {
          process.stderr.write(`strongroom audit verify: cannot verify ${dir}: ${(error as Error).message}\n`);
          process.exit(2);
        }
        process.stderr.write(`strongroom audit verify: ${error.message}\n`);
        process.exit(1);
      }
    });
  return audit;
}

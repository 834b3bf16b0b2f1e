import { Command } from "commander";
import { VERSION } from "../version.js";
import { auditCommand } from "./commands/audit.js";
import { registerBackup } from "./commands/backup.js";
import { devCommand } from "./commands/dev.js";
import { initCommand } from "./commands/init.js";
import { keysCommand } from "./commands/keys.js";
import { keyringCommand } from "./commands/keyring.js";
import { registerRekey } from "./commands/rekey.js";
import { registerRestore } from "./commands/restore.js";
import { serveCommand } from "./commands/serve.js";
import { environmentHelp } from "./environment-help.js";

const program = new Command()
  .name("strongroom")
  .description(
    "Strongroom: a self-hosted server for organizations, credentials and wallets that speaks the Turnkey public API.\n" +
      "Storage is embedded PGlite in --data-dir unless DATABASE_URL points at PostgreSQL.",
  )
  .version(VERSION)
  .showHelpAfterError()
  .addHelpText("after", environmentHelp);

program.addCommand(serveCommand().addHelpText("after", environmentHelp));
program.addCommand(initCommand());
program.addCommand(keysCommand());
program.addCommand(keyringCommand());
program.addCommand(devCommand());
registerBackup(program);
registerRestore(program);
registerRekey(program);
program.addCommand(auditCommand());

await program.parseAsync(process.argv);

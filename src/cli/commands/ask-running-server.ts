import { connect } from "node:net";
import { controlSocketPath, type ControlAnswer } from "../../server/control-socket.js";

/**
 * Asks the server running on `dataDir` (through its control socket, src/server/control-socket.ts) for a backup.
 * Undefined when no server answers there (none runs, or one died and left its socket): the caller then takes the
 * backup itself, with the data directory's lock.
 */
export async function backupFromRunningServer(dataDir: string): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(controlSocketPath(dataDir));
    const chunks: Buffer[] = [];
    let connected = false;
    socket.on("connect", () => {
      connected = true;
      socket.write("backup\n");
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (!connected && ["ENOENT", "ECONNREFUSED", "ENOTSOCK", "ENAMETOOLONG", "EINVAL"].includes(error.code ?? "")) resolve(undefined);
      else reject(new Error(`the server running on ${dataDir} did not finish the backup: ${error.message}`));
    });
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const lineEnd = all.indexOf("\n");
      if (lineEnd === -1) return reject(new Error(`the server running on ${dataDir} closed the control socket without an answer`));
      const head = JSON.parse(all.subarray(0, lineEnd).toString("utf8")) as ControlAnswer;
      if ("error" in head) return reject(new Error(`the server running on ${dataDir} refused the backup: ${head.error}`));
      const archive = all.subarray(lineEnd + 1);
      if (archive.length !== head.backup.bytes) {
        return reject(
          new Error(`the backup from the server was cut short (${archive.length} of ${head.backup.bytes} bytes): nothing was written`),
        );
      }
      resolve(new Uint8Array(archive));
    });
  });
}

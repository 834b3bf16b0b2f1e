import { Readable } from "node:stream";
import { extract, pack } from "tar-stream";

/**
 * A tar archive whose member names are absolute (`/base/1/112`, as PGlite's `dumpDataDir` writes them) written again
 * with relative names (`base/1/112`), so that `tar -x` unpacks it where it is run instead of at the root of the
 * filesystem (GNU tar strips the slash with a warning; others do not). The contents, modes and times are kept.
 */
export async function withRelativeNames(archive: Uint8Array): Promise<Uint8Array> {
  const out = pack();
  const written = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of out as AsyncIterable<Buffer>) chunks.push(chunk);
    return new Uint8Array(Buffer.concat(chunks));
  })();
  for await (const entry of Readable.from([archive]).pipe(extract())) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    const name = entry.header.name.replace(/^\/+/, "") || "./";
    await new Promise<void>((resolve, reject) =>
      out.entry({ ...entry.header, name }, Buffer.concat(chunks), (error) => (error ? reject(error) : resolve())),
    );
  }
  out.finalize();
  return written;
}

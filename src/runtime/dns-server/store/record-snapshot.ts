// The last-known copy of the served records on local disk (--snapshot-file, an emptyDir or volume
// path), so a server that starts while etcd is unreachable answers from it instead of SERVFAIL
// for every name. Written atomically (a temporary file, fsync, rename) at most once per interval
// after the copy changed, only from a copy that came from etcd. Verified on load: format version,
// SHA-256 of the body, entry count and prefix; a file failing any check is not served, and says
// why. The live copy replaces it as soon as etcd answers (the record store's first full load).
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import type { Logger } from '../../shared/log.ts';
import { encodeEntry } from '../../../skydns/skydns-entry.ts';
import { RecordIndex, type KeyValue } from './record-index.ts';
import type { RecordLimits } from './record-limits.ts';

export const SNAPSHOT_FORMAT = 'etcdns-record-snapshot';
export const SNAPSHOT_VERSION = 1;

/** The file's first line; the body (one JSON [key, value, modRevision] per line) follows. */
export interface SnapshotHeader {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  prefix: string;
  /** etcd's cluster id (decimal) of the copy's source, "" when unknown. */
  clusterId: string;
  revision: number;
  savedAt: string;
  entries: number;
  /** Hex SHA-256 of the body. */
  sha256: string;
}

export class SnapshotError extends Error {}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The copy as the file's text. Values are the decoded entries re-encoded (ownership fields are not kept). */
export function encodeSnapshot(index: RecordIndex, clusterId: string, savedAt: Date): string {
  const root = index.find([]);
  const stored = root ? index.subtree(root) : [];
  const body = stored.map((s) => `${JSON.stringify([s.key, encodeEntry(s.entry), s.modRevision])}\n`).join('');
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    prefix: index.prefix,
    clusterId,
    revision: index.revision,
    savedAt: savedAt.toISOString(),
    entries: stored.length,
    sha256: sha256(body),
  };
  return `${JSON.stringify(header)}\n${body}`;
}

/** Reads and verifies a snapshot's text; throws SnapshotError naming the first check that failed. */
export function decodeSnapshot(text: string, prefix: string): { header: SnapshotHeader; kvs: KeyValue[] } {
  const newline = text.indexOf('\n');
  if (newline < 0) throw new SnapshotError('no header line');
  let header: SnapshotHeader;
  try {
    header = JSON.parse(text.slice(0, newline)) as SnapshotHeader;
  } catch {
    throw new SnapshotError('header is not JSON');
  }
  if (header?.format !== SNAPSHOT_FORMAT) throw new SnapshotError(`not an ${SNAPSHOT_FORMAT} file`);
  if (header.version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(`format version ${String(header.version)}, this server reads ${SNAPSHOT_VERSION}`);
  }
  if (header.prefix !== prefix)
    throw new SnapshotError(`taken of prefix ${header.prefix}, this server serves ${prefix}`);
  const body = text.slice(newline + 1);
  if (sha256(body) !== header.sha256) throw new SnapshotError('checksum mismatch (truncated or altered)');
  const kvs: KeyValue[] = [];
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const [key, value, modRevision] = JSON.parse(line) as [string, string, number];
    kvs.push({ key, value, modRevision });
  }
  if (kvs.length !== header.entries)
    throw new SnapshotError(`${kvs.length} entries, the header says ${header.entries}`);
  return { header, kvs };
}

export interface RecordSnapshotOptions {
  file: string;
  prefix: string;
  zones: string[];
  logger: Logger;
  /** The limits the live copy applies, applied again on load (they may have changed since it was written). */
  limits?: RecordLimits;
  /** Least time between two writes; default 2 s. */
  intervalMs?: number;
}

/** What the store serves from a loaded snapshot, and how readiness describes it. */
export interface LoadedSnapshot {
  index: RecordIndex;
  detail: string;
}

export class RecordSnapshot {
  private readonly file: string;
  private readonly prefix: string;
  private readonly zones: string[];
  private readonly logger: Logger;
  private readonly limits: RecordLimits | undefined;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private source: (() => { index: RecordIndex; clusterId: string }) | undefined;
  private writing: Promise<void> = Promise.resolve();
  private written = 0;
  /** A missing file is logged once, not on every retry of the first etcd read. */
  private reportedMissing = false;

  constructor(options: RecordSnapshotOptions) {
    this.file = options.file;
    this.prefix = options.prefix;
    this.zones = options.zones;
    this.logger = options.logger;
    this.limits = options.limits;
    this.intervalMs = options.intervalMs ?? 2000;
  }

  /** The verified file as a copy to serve, or undefined (missing or failing a check: logged). */
  load(): LoadedSnapshot | undefined {
    const { file, prefix, zones, logger, limits } = this;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if (!this.reportedMissing) logger.warn('no record snapshot to serve', { file, error: (e as Error).message });
      this.reportedMissing = true;
      return undefined;
    }
    try {
      const { header, kvs } = decodeSnapshot(text, prefix);
      const index = RecordIndex.fromSnapshot(prefix, zones, kvs, header.revision, limits);
      if (index.skippedCount > 0) {
        logger.warn('record snapshot: values over the limits skipped', {
          file,
          byReason: Object.fromEntries(index.skippedByReason),
        });
      }
      const cluster = header.clusterId ? ` of etcd cluster ${header.clusterId}` : '';
      logger.warn('etcd unreachable: serving the record snapshot', { file, ...header });
      return { index, detail: `from snapshot at revision ${header.revision}${cluster} saved ${header.savedAt}` };
    } catch (e) {
      logger.error('record snapshot refused', { file, error: (e as Error).message });
      return undefined;
    }
  }

  /** The copy changed: write it within the interval (later changes in the interval join that write). */
  changed(source: () => { index: RecordIndex; clusterId: string }): void {
    this.source = source;
    if (this.timer) return;
    const wait = Math.max(0, this.written + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write());
    }, wait);
    this.timer.unref();
  }

  /** Writes what is pending now (on shutdown) and waits for it. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write());
    }
    await this.writing;
  }

  private async write(): Promise<void> {
    const source = this.source?.();
    if (!source) return;
    this.written = Date.now();
    const { file, logger } = this;
    const temp = `${file}.${process.pid}.tmp`;
    try {
      const handle = await fs.open(temp, 'w', 0o600);
      try {
        await handle.writeFile(encodeSnapshot(source.index, source.clusterId, new Date()));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, file);
      logger.debug('record snapshot written', { file, revision: source.index.revision });
    } catch (e) {
      logger.warn('could not write the record snapshot', { file, error: (e as Error).message });
      await fs.rm(temp, { force: true });
    }
  }
}

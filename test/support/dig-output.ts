// dig's text output read into records: pure, so tests of answer comparison need no dig process.

export interface DigRecord {
  name: string;
  ttl: number;
  class: string;
  type: string;
  /** RDATA as dig prints it, e.g. "10.0.0.1" or "10 20 8080 srv.example.org.". */
  data: string;
}

export interface DigResult {
  status: string;
  flags: string[];
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** The raw dig output, for assertion messages. */
  raw: string;
}

const SECTION = /^;; (ANSWER|AUTHORITY|ADDITIONAL) SECTION:$/;

function parseRecord(line: string): DigRecord | undefined {
  const m = /^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
  if (!m) return undefined;
  return { name: m[1]!, ttl: Number(m[2]), class: m[3]!, type: m[4]!, data: m[5]!.trim() };
}

export function parseDig(raw: string): DigResult {
  const result: DigResult = { status: '', flags: [], answer: [], authority: [], additional: [], raw };
  let section: DigRecord[] | undefined;
  for (const line of raw.split('\n')) {
    const header = /status: ([A-Z]+)/.exec(line);
    if (header) result.status = header[1]!;
    const flags = /^;; flags: ([^;]*);/.exec(line);
    if (flags) result.flags = flags[1]!.trim().split(/\s+/);
    const s = SECTION.exec(line);
    if (s) {
      section = s[1] === 'ANSWER' ? result.answer : s[1] === 'AUTHORITY' ? result.authority : result.additional;
      continue;
    }
    if (line.trim() === '') {
      section = undefined;
      continue;
    }
    if (section && !line.startsWith(';')) {
      const record = parseRecord(line);
      if (record) section.push(record);
    }
  }
  return result;
}

// With --workers, each worker keeps its own metrics; the primary serves one /metrics page made of
// all of them, every series labelled with its worker, each metric family described once.

/** Adds `worker="<id>"` to every series line of a Prometheus text page. */
function labelSeries(line: string, worker: string): string {
  const label = `worker="${worker}"`;
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  if (brace >= 0 && brace < space) return `${line.slice(0, brace + 1)}${label},${line.slice(brace + 1)}`;
  return `${line.slice(0, space)}{${label}}${line.slice(space)}`;
}

export function mergeMetricPages(pages: Map<string, string>): string {
  const families = new Map<string, { header: string[]; series: string[] }>();
  for (const [worker, page] of pages) {
    let current: { header: string[]; series: string[] } | undefined;
    for (const line of page.split('\n')) {
      if (line.length === 0) continue;
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (meta) {
        const name = meta[2]!;
        current = families.get(name);
        if (!current) {
          current = { header: [], series: [] };
          families.set(name, current);
        }
        if (current.header.length < 2 && !current.header.some((h) => h.startsWith(`# ${meta[1]}`))) {
          current.header.push(line);
        }
        continue;
      }
      current?.series.push(labelSeries(line, worker));
    }
  }
  return `${[...families.values()].flatMap((f) => [...f.header, ...f.series]).join('\n')}\n`;
}

// What every benchmark's JSON says about the machine it ran on: figures belong to one machine
// and one moment, and the load averages tell how busy it was with other work.
import { cpus, release } from 'node:os';

export function machineFacts(loadAtStart: number[], loadAtEnd: number[]) {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    kernel: release(),
    loadAverage: { start: loadAtStart, end: loadAtEnd },
  };
}

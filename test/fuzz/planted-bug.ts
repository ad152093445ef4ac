// A target with a bug behind a four-byte magic: each matching byte is a new block, so a
// coverage-guided loop climbs to it; blind random inputs would need ~2^32 tries.
import type { FuzzTarget } from '../../fuzz/engine.ts';

export const plantedBug: FuzzTarget = {
  name: 'planted-bug',
  maxLength: 16,
  run(data) {
    if (data[0] === 0x65) {
      if (data[1] === 0x74) {
        if (data[2] === 0x63) {
          if (data[3] === 0x64) throw new Error('planted bug reached');
        }
      }
    }
  },
};

// The flags every process of the system is started with: `npm start`, `npm run start:prod`, the
// image's CMD, the local topology's roles, and `npm run bench` with the servers it starts. A test checks that each of
// those carries them (test/runtime-flags.test.ts).
//
// --max-semi-space-size=64: V8's young generation (16 MB per semi-space by default on 64-bit) fills
// every few milliseconds under load, and each scavenge copies what is still alive — mostly the
// requests in flight. At 64 MB a scavenge runs a quarter as often over the same live set: garbage
// collection fell from 9.1% to 3.4% of the edge's time under load (`npm run bench`), for at
// most 96 MB more memory (two semi-spaces of 64 MB rather than 16), taken only when allocation is
// that fast: V8 grows the young generation towards the limit as it needs to.
export const RUNTIME_FLAGS = ['--max-semi-space-size=64'] as const;

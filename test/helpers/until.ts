// Polling for an outcome instead of sleeping a guessed time: asks every 100 ms until the answer is
// the one wanted, and fails the test after `tries` asks (60 s by default).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(ask: () => T | Promise<T>, done: (value: T) => boolean, tries = 600): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await ask();
    if (done(value)) return value;
    await sleep(100);
  }
  throw new Error('gave up waiting');
}

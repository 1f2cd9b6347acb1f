// Text generation: headlines and 2-3 sentence bios from templates filled with a field's pools.
export interface Ctx {
  first: string; title: string; org: string; application: string;
  topic: string; topic2: string; method: string; method2: string;
}

export const HEADLINES: ((c: Ctx) => string)[] = [
  (c) => `${c.title} working on ${c.topic}`,
  (c) => `${c.title} · ${c.topic}`,
  (c) => `${c.title} at ${c.org} | ${c.topic}`,
  (c) => `${c.topic} and ${c.topic2} | ${c.method}`,
  (c) => `${c.title} — ${c.method} for ${c.application}`,
  (c) => `Researching ${c.topic} with ${c.method}`,
];

export const OPENINGS: ((c: Ctx) => string)[] = [
  (c) => `${c.first} studies ${c.topic} with a focus on ${c.application}.`,
  (c) => `${c.first}'s research uses ${c.method} to understand ${c.topic}.`,
  (c) => `${c.first} leads a small team at ${c.org} working on ${c.topic}.`,
  (c) => `${c.first} works at the intersection of ${c.topic} and ${c.topic2}.`,
  (c) => `${c.first} (${c.title}) explores how ${c.method} can advance ${c.application}.`,
];

export const MIDDLES: ((c: Ctx) => string)[] = [
  (c) => `Day-to-day work involves ${c.method} and ${c.method2}.`,
  (c) => `Recent projects combine ${c.method} with ${c.method2} to study ${c.topic2}.`,
  (c) => `Has built open-source tooling for ${c.method2} used by several collaborating groups.`,
  (c) => `Trained in ${c.method2} before moving into ${c.topic}.`,
  (c) => `Current work applies ${c.method} to questions in ${c.topic2}.`,
];

export const CLOSINGS: ((c: Ctx) => string)[] = [
  (c) => `Happy to talk about ${c.application}.`,
  (c) => `Open to collaborations on ${c.topic2}.`,
  () => 'Also mentors early-career researchers and reviews for journals in the field.',
  (c) => `Regularly advises industry partners on ${c.application}.`,
  () => 'Enjoys teaching and science communication.',
];

// Passages and places: the pure helpers behind explanations.
import { describe, expect, it } from 'vitest';
import { isDemonym, isIn, placesIn } from './place.js';
import { passage } from './snippet.js';
import { stem } from './text.js';

const stems = (...words: string[]) => new Set(words.map(stem));

describe('passage', () => {
  it('bolds the words by stem, joins adjacent ones, and cuts with ellipses a few words either side', () => {
    const bio =
      'Hannah trained as a chemist in Uppsala and spent six years in industry before her lab began to develop CRISPR base editors that correct point mutations, and now measures off-target gene editing in human stem cells for several hospitals.';
    expect(passage(bio, stems('crispr', 'editing'))).toBe(
      // "editors" is another stem ("editor") than "editing" ("edit"), as in PostgreSQL's English stemmer.
      '…before her lab began to develop **CRISPR** base editors that correct point mutations, and now measures off-target gene **editing** in human stem cells for several…',
    );
    expect(passage('Gene editing of rice.', stems('gene', 'editing'))).toBe('**Gene editing** of rice.');
    expect(passage('Nothing here.', stems('crispr'))).toBeNull();
  });
});

describe('places', () => {
  it('names whole parts of locations, or a one-word part by its adjective', () => {
    const locations = ['Nairobi, Kenya', 'New Delhi, India', 'Boston, United States'];
    expect(placesIn('epidemiologist in Nairobi', locations).map((p) => p.name)).toEqual(['Nairobi']);
    expect(placesIn('Kenyan public health', locations).map((p) => [p.name, p.queryWords])).toEqual([['Kenya', ['kenyan']]]);
    expect(placesIn('new materials for united states', locations).map((p) => p.name)).toEqual(['United States']);
    expect(placesIn('unit tests', locations)).toEqual([]);
    expect(isDemonym('brazilian', 'brazil')).toBe(true);
    expect(isDemonym('chinese', 'china')).toBe(true);
    expect(isDemonym('punish', 'pune')).toBe(false);
    const [kenya] = placesIn('Kenyan', locations);
    expect(isIn('Kisumu, Kenya', kenya!)).toBe(true);
    expect(isIn('Kenyatta Avenue, Lusaka', kenya!)).toBe(false);
  });
});

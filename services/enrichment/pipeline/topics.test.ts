// Topics and skills from realistic headlines and bios: noun phrases become topics, skill verbs and
// method nouns become skills, and filler, pronouns, the person's own name and organisation do not.
import { describe, expect, it } from 'vitest';
import { extractTopics, MAX_SKILLS, MAX_TOPICS } from './topics.js';

const HEADLINE = 'Computational biologist working on protein structure prediction and drug discovery';
const BIO =
  'I lead a research group at Karolinska Institutet developing machine learning methods for protein structure prediction. ' +
  'Our work combines cryo-EM data with deep learning models to study membrane proteins and their role in drug resistance. ' +
  'I teach bioinformatics, mentor PhD students and build open-source tools in Python and Rust. Previously I worked on ' +
  'statistical genetics at the Wellcome Sanger Institute, designing large-scale sequencing studies.';

describe('extractTopics', () => {
  const { topics, skills } = extractTopics(HEADLINE, BIO, { name: 'Maria Lindqvist', organization: 'Karolinska Institutet' });

  it('finds the subjects of a realistic bio, the most frequent first', () => {
    expect(topics[0]).toBe('protein structure prediction'); // said twice
    expect(topics).toEqual(expect.arrayContaining(['drug discovery', 'deep learning models', 'membrane proteins', 'drug resistance', 'bioinformatics']));
    expect(topics.length).toBeLessThanOrEqual(MAX_TOPICS);
    expect(new Set(topics).size).toBe(topics.length);
  });

  it('leaves out pronouns, filler, roles, institutions and the person', () => {
    for (const topic of topics) {
      expect(topic).toBe(topic.toLowerCase());
      expect(topic).not.toMatch(/^(i|our|their|my)\b|\bour work\b|research group|biologist|karolinska|students/);
    }
  });

  it('finds skills: skill verbs with their objects, methods and tools', () => {
    expect(skills).toEqual(
      expect.arrayContaining(['teaching bioinformatics', 'building open-source tools', 'developing machine learning methods', 'python', 'rust', 'deep learning']),
    );
    expect(skills.length).toBeLessThanOrEqual(MAX_SKILLS);
  });

  it('reads headline separators as breaks and drops parenthesised restatements', () => {
    const result = extractTopics('Data scientist · NLP | Python — retrieval-augmented generation (RAG)', 'Uses X-ray crystallography and statistical modelling.');
    expect(result.topics).toEqual(expect.arrayContaining(['nlp', 'python', 'retrieval-augmented generation']));
    expect(result.topics).not.toContain('rag');
    expect(result.skills).toEqual(expect.arrayContaining(['python', 'x-ray crystallography', 'statistical modelling']));
  });

  it('keeps the first spelling of a phrase said in singular and plural', () => {
    expect(extractTopics('Membrane proteins', 'Studies a membrane protein and other membrane proteins.').topics[0]).toBe('membrane proteins');
  });

  it('does not make a topic of the person’s own name', () => {
    const result = extractTopics(null, 'Zanele studies non-communicable diseases with a focus on health policy.', { name: 'Zanele Dlamini' });
    expect(result.topics).toEqual(['non-communicable diseases', 'health policy']);
  });

  it('returns nothing for text without subjects', () => {
    expect(extractTopics('', 'It is what it is. I am very happy to help.')).toEqual({ topics: [], skills: [] });
  });
});

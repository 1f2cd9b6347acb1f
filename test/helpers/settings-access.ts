// What every settings screen is checked for in the browser (docs/SETTINGS.md "Layout and access"):
// nothing wider than the window, and no serious or critical axe-core violation. axe's source runs
// through the DevTools protocol (page.evaluate), which the page's CSP does not govern, so the pages
// are tested with the very policy they are served with. Also: moving focus by Tab alone.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** How far the page is wider than its window, in CSS pixels (0 or less: no horizontal scroll). */
export function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ passes: unknown[]; violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const { passes, violations } = await axe.run(document);
    // A run that checked nothing would pass any page.
    if (passes.length === 0) throw new Error('axe-core checked no rule on this page');
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  });
}

/** The focused element's accessible text: its aria-label, or its text, or its value. */
function focusedText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return '';
    const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
    return (el.getAttribute('aria-label') ?? labelled ?? el.closest('label')?.textContent ?? (el.textContent || (el as HTMLInputElement).value || ''))
      .replace(/\s+/g, ' ').trim();
  });
}

/** Presses Tab until the focused control's text starts with `text` (throws after `limit` presses). */
export async function tabTo(page: Page, text: string | RegExp, limit = 120): Promise<void> {
  const matches = (s: string) => (typeof text === 'string' ? s.startsWith(text) : text.test(s));
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (matches(await focusedText(page))) return;
  }
  throw new Error(`no control starting with ${String(text)} within ${limit} Tab presses`);
}

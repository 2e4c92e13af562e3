// Draws the extension's icon (media/icon.png, 128×128) from the SVG below with the machine's
// Chromium: a context window as a stacked bar, each owner its own colour, under a tally of four
// strokes crossed by a fifth. Run `node scripts/draw-icon.mjs` after changing the drawing.
import { writeFileSync } from 'fs';
import { chromium } from 'playwright-core';

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#1f2a44"/>
      <stop offset="1" stop-color="#0f1626"/>
    </linearGradient>
  </defs>
  <rect x="4" y="4" width="120" height="120" rx="24" fill="url(#bg)"/>
  <g stroke="#f4f6fb" stroke-width="8" stroke-linecap="round">
    <path d="M34 26v42M50 26v42M66 26v42M82 26v42"/>
    <path d="M26 60L96 32" stroke="#ffb547"/>
  </g>
  <g>
    <rect x="20" y="84" width="88" height="20" rx="6" fill="#2b3757"/>
    <path d="M26 84h18v20h-18a6 6 0 0 1-6-6v-8a6 6 0 0 1 6-6z" fill="#7aa2ff"/>
    <rect x="44" y="84" width="12" height="20" fill="#b58cff"/>
    <rect x="56" y="84" width="30" height="20" fill="#4fd1a5"/>
  </g>
</svg>`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${SVG}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync('media/icon.png', png);
  console.log(`media/icon.png: ${png.length} bytes`);
} finally {
  await browser.close();
}

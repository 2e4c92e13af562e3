import { strict as assert } from 'assert';
import { Tiktoken } from 'js-tiktoken/lite';
import { loadRanksSync } from '../../../../src/core/accounting/rankLoader';
import { PieceSplitter, splitPieces } from '../../../../src/core/accounting/pieceSplitter';
import { createTokenCounter, getTokenCounter, type EncodingName } from '../../../../src/core/accounting/tokenizer';

const ENCODINGS: EncodingName[] = ['o200k_base', 'cl100k_base'];

function reference(encoding: EncodingName): Tiktoken {
  const ranks = require(`js-tiktoken/ranks/${encoding}`);
  return new Tiktoken(ranks.default ?? ranks);
}

/** Text that sits on the edges of the pre-tokenizer patterns, ASCII and not. */
const ADVERSARIAL = [
  "I'm sure you're right, he'LL see; she'S here, they'Ve gone, it'd do. DON'T O'Neil ''s 'S'T 'x ' '",
  "can't'll 're've 'm'd 'Ll 'lL 'rE 'Re 've' 'l 'r end'",
  '1234567890 12 3 1234 3.14159e-10 0xdeadbeef １２３ ²³ ٣٤٥ 12²3 Ⅻ 7½',
  'a   b    c\t\t\tx  \n  y \r\n\r\n  z   \n\n\n trailing   ',
  'x \u00a0 y \u3000\u3000z \u2028 \u2029 \ufeff \u1680 \u202f\u205f end \v\f x',
  '\r\n\r\nwindows\r\nlines\r\n\r\n',
  '👩‍💻👨‍👩‍👧‍👦 👍🏽🇯🇵 ❤️ ⚠️ 😀😀😀 a😀b 😀 😀',
  '\ud800 a\udc00b \ud83d x \udfff\ud800 lone\ud800',
  'hello <|endoftext|> world <|im_start|>user<|im_end|> <|fim_prefix|><|endofprompt|>',
  'Привет мир, Ελληνικά, مرحبا, עברית, हिन्दी, ǅemal, ʰello, e\u0301 é İstanbul ßtraße ﬁne',
  'function f(a,b){return a/b;}//comment\n/** doc */\npath/to/file.ts\n/ .\n/ x.\r\n/y a//b ?/\n\n/',
  'camelCaseWord HTTPServer XMLHttpRequest ALLCAPS lowerUPPER mIxEd A a Aa aA',
  '日本語のテキストと CJK 中文字符，标点。「引用」',
  ' !"#$%&()*+,-./:;<=>?@[\\]^_`{|}~ \u0000\u0001\u001c\u007f\u0085',
  'a'.repeat(1200),
  'A'.repeat(300) + 'b'.repeat(300) + "'ll",
  '中'.repeat(600),
  '!'.repeat(400) + '\n'.repeat(5) + '/'.repeat(5),
  ' '.repeat(300) + 'x' + ' '.repeat(300),
  '9'.repeat(400),
  'QmFzZTY0IGVuY29kZWQgdGV4dCB3aXRoICsgYW5kIC8gY2hhcnM=+/+/==\nAAAA',
];

/** Fragments the random texts are made of: pattern edges, several scripts, odd code points. */
const FRAGMENTS = [
  'a', 'Z', 'hello', 'World', 'HTTP', "'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'ll", "'Ll", "'m", "'d", "'x",
  '0', '12', '1234', ' ', '  ', '\t', '\n', '\r', '\r\n', '\v', '.', ',', '/', '//', '-', '(', '"', '{',
  '<|endoftext|>', 'é', 'É', 'ǅ', 'ʰ', '中', '文', '\u0301', '\u0308', '²', '٣', 'Ⅻ', '\u00a0', '\u3000', '\u2028',
  '\ufeff', '😀', '👩‍💻', '👍🏽', '\u200d', '\ud800', '\udc00', '🇯🇵', '—', '…', 'ß', 'İ', 'ﬁ', '\u0085', '\u001c', '\u007f',
];

/** Deterministic texts: fragments and random code points (all planes, surrogates included), from a fixed start. */
function randomTexts(count: number, start: number): string[] {
  let x = start;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  const texts: string[] = [];
  for (let t = 0; t < count; t++) {
    let text = '';
    const parts = 1 + (next() % 16);
    for (let i = 0; i < parts; i++) {
      const roll = next() % 10;
      if (roll === 0) text += String.fromCodePoint(next() % 0x110000);
      else if (roll === 1) text += String.fromCharCode(next() % 0x80);
      else text += FRAGMENTS[next() % FRAGMENTS.length];
    }
    texts.push(text);
  }
  return texts;
}

function regExpPieces(pattern: string, text: string): string[] {
  return [...text.matchAll(new RegExp(pattern, 'gu'))].map((match) => match[0]);
}

describe('token counting is exact (against js-tiktoken)', function () {
  this.timeout(120_000);

  for (const encoding of ENCODINGS) {
    const pattern = loadRanksSync(encoding).pattern;

    it(`splits text into the pattern's pieces, piece for piece, with the ASCII matcher (${encoding})`, () => {
      assert.ok(new PieceSplitter(pattern).scansAscii, "the rank file's pattern has a hand-written matcher");
      for (const text of [...ADVERSARIAL, ...randomTexts(4000, encoding.length)]) {
        assert.deepEqual(splitPieces(pattern, text), regExpPieces(pattern, text), `pieces of ${JSON.stringify(text.slice(0, 60))}`);
      }
    });

    it(`counts like js-tiktoken, whichever way the counter splits (${encoding})`, () => {
      const ref = reference(encoding);
      const counters = { matcher: createTokenCounter(encoding, 0), regExp: createTokenCounter(encoding, Infinity) };
      const texts = [...ADVERSARIAL, ...randomTexts(1500, 7 + encoding.length)];
      for (const text of texts) {
        const expected = ref.encode(text, [], []).length;
        for (const [name, counter] of Object.entries(counters)) {
          assert.equal(counter.count(text), expected, `${name} on ${JSON.stringify(text.slice(0, 60))}`);
        }
      }
      // Again from the caches, and as one long text.
      const all = texts.join('');
      const expected = ref.encode(all, [], []).length;
      for (const counter of Object.values(counters)) assert.equal(counter.count(all), expected);
    });

    it(`counts the same before and after moving from the RegExp to the matcher (${encoding})`, async () => {
      const ref = reference(encoding);
      const counter = createTokenCounter(encoding, 300);
      const texts = randomTexts(400, 99);
      for (const text of [...texts, ...texts]) assert.equal(counter.count(text), ref.encode(text, [], []).length);
      const large = texts.join('\n').repeat(12);
      assert.ok(large.length > 64 * 1024, 'large enough to be counted in slices');
      assert.equal(await counter.countAsync(large), ref.encode(large, [], []).length);
    });
  }

  it('counts long pre-tokenizer pieces exactly like js-tiktoken (runs of one letter, CJK without punctuation, random lowercase)', function () {
    this.timeout(120_000); // js-tiktoken, the reference, is quadratic on these pieces
    const random = (n: number, alphabet: string, seed: number) => {
      let x = seed;
      return Array.from({ length: n }, () => alphabet[(x = (x * 1103515245 + 12345) % 2 ** 31) % alphabet.length]).join('');
    };
    const long = ['a'.repeat(129), 'a'.repeat(2_000), 'x'.repeat(3_001), '中文字符测试数据'.repeat(150), random(2_500, 'etaoinshrdlu', 7), random(2_000, 'ab', 11), 'ab'.repeat(1_000), '7'.repeat(3_333)];
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const counter = getTokenCounter(encoding);
      const ref = reference(encoding);
      for (const text of long) assert.equal(counter.count(text), ref.encode(text, [], []).length, `${encoding}: ${text.slice(0, 12)}… (${text.length} chars)`);
    }
  });
});

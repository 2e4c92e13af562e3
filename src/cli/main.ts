import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { homedir, tmpdir } from 'os';
import { basename, join } from 'path';
import '../node/usePlatform';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { openStore } from '../node/store';
import { renderHtmlReport } from '../core/report/htmlReport';
import { policyNamed, REPLAY_POLICIES } from '../core/replay/baselines';
import { finalChangePathsOf } from '../core/replay/facts';
import { replayRun, type RunReport } from '../core/replay/replay';
import { importTranscriptFile } from '../node/transcripts/readTranscriptFile';
import { parseArgs, positiveInt } from './args';
import { EXEC_USAGE, runExec } from './exec';
import { parseExecArgs } from './execArgs';
import { openStoreToInspect, renderStoredSession } from './storedSession';
import { ReplayJsonFile } from './replayJsonFile';
import { formatRuns, totalsByPolicy } from './retentionTable';

const USAGE = `tally — replay recorded agent runs through Tally's context manager

Usage:
  tally replay FILE… [--window N] [--max-output N] [--strategy NAME] [--json OUT]
  tally inspect FILE [--out report.html] [--window N] [--max-output N] [--strategy NAME]
  tally inspect --session ID [--store DIR]
  ${EXEC_USAGE}

Formats: OpenAI chat messages (JSON or JSONL), Anthropic messages, SWE-agent .traj,
mini-swe-agent .traj.json. Strategies: ${REPLAY_POLICIES.map((p) => p.name).join(', ')} (default tally),
or all of them with --strategy all. Besides cost, it reports retention: the share of facts
still present in each request after the run's first compaction, by kind:
  user's words        every user message, verbatim
  final-change paths  each path of the run's final change, once the agent's own action changed it
                      (an edit tool, or a command that wrote it)
  latest error        the error line of the latest failing command
  instructions        the instructions (system prompt, AGENTS.md)
  removed-result refs for each tool result taken out, a ref that read_result resolves
  commands            the commands whose results the agent still acts on: the test or build
                      command it ran last, and the command that produced the latest error
                      (their first line, as written)
  numbers             the numbers the work depends on: line numbers, counts, versions and error
                      codes in the latest error (its line and where it happened) and in the
                      user's words, each with the word or token that names it ("line 42",
                      "3 failed", "parser.py:42", "E501")
and the working set: at every compaction, of the last 1, 3 and 5 whole tool results (and
assistant messages) before it, the share the next request carried whole. Re-read: the tokens
of the working-set results (the last five) a compaction removed, which a live agent would read
again; the cost is given as replayed and with them added as new input. Beside the totals, the
figures published work reports: cost and input against no management, the cut in peak tokens,
the share of input read from the prompt cache.
With --json, each request lists its items (kind, label, source, tokens) in prompt order; they add
up to the request's total; each compaction carries the summary it wrote. Replay runs offline with the local summarizer. It exits with status 1 if any request
went over the effective window or broke a tool call/result pair.`;

/** The `--json` file, written as the replay goes: each request as it is replayed, each run as it ends. */
async function replayFiles(files: string[], options: Map<string, string>, out?: ReplayJsonFile): Promise<RunReport[]> {
  const window = positiveInt(options, 'window', 128_000);
  const maxOutput = positiveInt(options, 'max-output', Math.min(8_192, Math.floor(window / 8)));
  const strategy = options.get('strategy') ?? 'tally';
  const policies = strategy === 'all' ? REPLAY_POLICIES : [policyNamed(strategy)];
  const folder = mkdtempSync(join(tmpdir(), 'tally-replay-'));
  // The store is thrown away at exit: it lives in memory, and nothing waits on the disk.
  const store = await openStore(folder, { inMemory: true });
  const counter = getTokenCounter('o200k_base');
  const reports: RunReport[] = [];
  try {
    for (const file of files) {
      const transcript = importTranscriptFile(file);
      for (const warning of transcript.meta.warnings) process.stderr.write(`${basename(file)}: ${warning}\n`);
      const finalChangePaths = finalChangePathsOf(transcript.meta);
      for (const policy of policies) {
        out?.startRun({ label: basename(file), policy: policy.name });
        const report = await replayRun({
          label: basename(file), messages: transcript.messages, policy, store, counter, contextWindow: window, maxOutputTokens: maxOutput, finalChangePaths, withItems: Boolean(out),
          onRequest: out && ((request) => {
            out.addRequest(request);
            delete request.items; // written: a long run's items would fill the memory
          }),
        });
        if (out) {
          out.addRun(report);
          report.requestsDetail = []; // written: the table and totals do without them
        }
        reports.push(report);
      }
    }
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
  return reports;
}

function printRuns(reports: RunReport[]): void {
  console.log(formatRuns(reports));
}

/** `tally inspect --session ID [--store DIR]`: prints a stored session (one `tally exec` wrote, say). */
async function inspectSession(sessionId: string, storeFolder: string | undefined): Promise<number> {
  const store = await openStoreToInspect(storeFolder ?? join(homedir(), '.tally', 'store'));
  try {
    process.stdout.write(await renderStoredSession(store, sessionId));
  } finally {
    await store.close();
  }
  return 0;
}

async function exec(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    console.log(EXEC_USAGE);
    return 0;
  }
  let args;
  try {
    args = parseExecArgs(argv, process.cwd());
  } catch (error) {
    console.error(`tally: ${error instanceof Error ? error.message : String(error)}\n\n${EXEC_USAGE}`);
    return 2;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return runExec(args, { env: process.env, stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), signal: controller.signal });
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'exec') return exec(argv.slice(1));
  const args = parseArgs(argv);
  if (args.command === 'help' || args.options.has('help') || args.command === '--help') {
    console.log(USAGE);
    return 0;
  }
  if (args.command === 'inspect' && args.options.has('session')) return inspectSession(args.options.get('session')!, args.options.get('store'));
  if (args.files.length === 0) throw new Error(`${args.command} needs at least one FILE\n\n${USAGE}`);
  if (args.command === 'replay') {
    const json = args.options.get('json');
    // Opened first: a path that cannot be written fails before the replay, not after it.
    const out = json ? new ReplayJsonFile(json, new Date().toISOString()) : undefined;
    let reports: RunReport[];
    try {
      reports = await replayFiles(args.files, args.options, out);
      out?.finish(totalsByPolicy(reports));
    } catch (error) {
      out?.abandon();
      throw error;
    }
    printRuns(reports);
    if (json) console.log(`wrote ${json}`);
    const violations = reports.reduce((n, r) => n + r.violations.overWindow + r.violations.brokenPairs, 0);
    if (violations > 0) console.error(`${violations} invariant violation(s)`);
    return violations > 0 ? 1 : 0;
  }
  if (args.command === 'inspect') {
    if (args.files.length !== 1) throw new Error('inspect takes exactly one FILE');
    if (args.options.get('strategy') === 'all') throw new Error('inspect shows one strategy: name it with --strategy');
    const [report] = await replayFiles(args.files, args.options);
    const out = args.options.get('out') ?? `${basename(args.files[0]).replace(/\.(traj\.json|traj|jsonl|json)$/i, '')}.report.html`;
    writeFileSync(out, renderHtmlReport(report));
    printRuns([report]);
    console.log(`wrote ${out}`);
    return 0;
  }
  throw new Error(`unknown command "${args.command}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`tally: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);

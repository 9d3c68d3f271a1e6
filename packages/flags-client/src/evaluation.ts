import type { SwitchRecord } from '@gsp/platform-contract';
import type { FlagSource } from './evaluate.js';

/** Where an answer came from: the evaluation order's step, or the remote OFREP provider. */
export type EvaluationSource = FlagSource | 'provider';

export interface Evaluation {
  value: boolean;
  source: EvaluationSource;
  envPinned: boolean;
  /** True when the store could not be read and this is the last value seen (or the default). */
  stale: boolean;
  /** The stored value that decided (source `cluster` or `platform`): who set it, when, why, until when. */
  record?: SwitchRecord | undefined;
}

/** An evaluation with the stored values that produced it. */
export interface DetailedEvaluation extends Evaluation {
  source: FlagSource;
  platformValue: boolean | undefined;
  clusterValue: boolean | undefined;
  platformRecord: SwitchRecord | undefined;
  clusterRecord: SwitchRecord | undefined;
}

export interface EvaluationContext {
  org?: string | undefined;
  clusterId?: string | undefined;
}

// Imported for its effect by every Node entry point (extension, CLI, replay worker, tests):
// token counters read their ranks from the files beside the bundle.
import { useRankSource } from '../../core/accounting/rankLoader';
import { nodeRankSource } from './rankSource';

useRankSource(nodeRankSource());

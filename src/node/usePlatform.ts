// Imported for its effect by every Node entry point (extension, CLI, replay worker, tests): the
// core's process-wide ports get their Node implementations before anything counts, hashes or yields.
import { isUtf8 } from 'buffer';
import { useRankSource } from '../core/accounting/rankLoader';
import { useBase64Encoder } from '../core/images/base64';
import { useTurnScheduler } from '../core/nextTurn';
import { useSha256, useUtf8Check } from '../core/toolOutput/scan';
import { nodeRankSource } from './accounting/rankSource';
import { nodeSha256 } from './sha256';

useRankSource(nodeRankSource());
useSha256(nodeSha256);
useUtf8Check(isUtf8);
useTurnScheduler(setImmediate);
useBase64Encoder((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'));

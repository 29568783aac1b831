import { canonicalJson } from '../internal/canonical-json.js';
import { SAMPLE_INDEX_TAG } from './call-model.js';
import type { GenerateRequest } from './types.js';

/**
 * The canonical key of a request to a model: `modelId` plus every field that can change the
 * answer, as JSON with sorted keys. `tags` are left out (they are labels, never sent), except the
 * sample index that {@link callModel} sets when it emulates `n > 1`, so emulated samples stay
 * distinct. Used by {@link withCache} and by cassettes.
 *
 * @example
 * ```ts
 * import { requestKey } from '@tot/core';
 *
 * const a = requestKey('gpt', { messages: [{ role: 'user', content: 'x' }], temperature: 0 });
 * const b = requestKey('gpt', { temperature: 0, messages: [{ content: 'x', role: 'user' }], tags: { role: 'eval' } });
 * a === b; // true
 * ```
 */
export function requestKey(modelId: string, request: GenerateRequest): string {
  const { tags, n, ...rest } = request;
  const sample = tags?.[SAMPLE_INDEX_TAG];
  return canonicalJson({ modelId, ...rest, n: n ?? 1, ...(sample === undefined ? {} : { sample }) });
}


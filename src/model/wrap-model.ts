import type { LanguageModel } from './types.js';

/** A model with `inner`'s identity and capabilities and a new `generate`: the shape of every middleware. */
export function wrapModel<M extends object = object>(inner: LanguageModel, generate: LanguageModel['generate'], extra?: M): LanguageModel & M {
  const model: LanguageModel = {
    modelId: inner.modelId,
    ...(inner.capabilities === undefined ? {} : { capabilities: inner.capabilities }),
    generate,
  };
  return extra === undefined ? (model as LanguageModel & M) : Object.defineProperties(model, Object.getOwnPropertyDescriptors(extra)) as LanguageModel & M;
}

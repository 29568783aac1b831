import { z } from 'zod';

const VERSIONS = ['v2', 'v3', 'v4'] as const;

function versionMessage(version: unknown): string {
  if (version === 'v1') return "specification v1 (ai 3 and 4) is not supported: use a provider package of ai 5 or later (specification 'v2', 'v3' or 'v4')";
  return `expected specification 'v2', 'v3' or 'v4' (ai 5, 6 or 7), got ${JSON.stringify(version) ?? String(version)}`;
}

/**
 * What makes a value an AI SDK model of a supported version: the adapters check it up front, so a
 * model id string or an old provider fails at once with what to pass instead.
 */
export function aiSdkModelSchema(method: 'doGenerate' | 'doEmbed') {
  const kind = method === 'doGenerate' ? 'language' : 'embedding';
  const example = method === 'doGenerate' ? "openai('gpt-4o-mini')" : "openai.embedding('text-embedding-3-small')";
  return z.custom<object>((v) => typeof v === 'object' && v !== null, `expected an AI SDK ${kind} model object such as ${example} (a model id string needs its provider)`).pipe(
    z
      .object({
        specificationVersion: z.unknown().refine((v) => (VERSIONS as readonly unknown[]).includes(v), { error: (issue) => versionMessage(issue.input) }),
        provider: z.string(),
        modelId: z.string(),
        [method]: z.custom<() => unknown>((v) => typeof v === 'function', `expected a ${method} method`),
      })
      .loose(),
  );
}

/** The settings both AI SDK adapters send with every call: JSON-like provider options keyed by provider name, and HTTP headers. */
export const callSettingsShape = {
  // Passed through on purpose: each provider's own settings, which only the provider knows.
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  headers: z.record(z.string(), z.string()).optional(),
};

/** The call options those settings give: only the ones set. */
export function callSettings(o: { providerOptions?: Record<string, Record<string, unknown>> | undefined; headers?: Record<string, string> | undefined }) {
  return {
    ...(o.providerOptions === undefined ? {} : { providerOptions: o.providerOptions }),
    ...(o.headers === undefined ? {} : { headers: o.headers }),
  };
}

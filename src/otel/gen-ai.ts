// The OpenTelemetry GenAI semantic conventions this module writes, by name. Spelled out here
// because `@opentelemetry/semantic-conventions` keeps them in its `incubating` entry, which is not
// meant to be a runtime dependency; the tests hold every name to that entry.

export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const GEN_AI_REQUEST_CHOICE_COUNT = 'gen_ai.request.choice.count';
export const GEN_AI_REQUEST_STOP_SEQUENCES = 'gen_ai.request.stop_sequences';
export const GEN_AI_REQUEST_SEED = 'gen_ai.request.seed';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ERROR_TYPE = 'error.type';

export const OPERATION_CHAT = 'chat';
export const OPERATION_INVOKE_WORKFLOW = 'invoke_workflow';
export const TOKEN_TYPE_INPUT = 'input';
export const TOKEN_TYPE_OUTPUT = 'output';

export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';

// The conventions' advised bucket boundaries for the two client metrics.
export const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

export { TOT_ERROR_CODES, type TotErrorCode } from './error-codes.js';
export { TotError, type TotErrorOptions, type ProtocolErrorObject } from './tot-error.js';
export type { CommonErrorDetails, ConfigDifference, ErrorLocation, PartialRunResult, TotErrorDetails, TotErrorDetailsMap } from './error-details.js';

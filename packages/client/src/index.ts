export { TigerGraphConnection } from './connection.js';
export type { ConnectionOptions, TokenTriple, TokenVersion, TripleVersion, VertexQuery } from './connection.js';
export { createTokenApi, DEFAULT_LIFETIME_3X, DEFAULT_LIFETIME_JWT, DEFAULT_TIMEOUT_MS } from './restpp-client.js';
export type { TokenClient } from './restpp-client.js';
export { createSecretApi } from './secret-api.js';
export type { SecretApiOptions, SecretClient } from './secret-api.js';
export { createGsqlClient } from './gsql-client.js';
export type { GsqlClient, GsqlClientOptions } from './gsql-client.js';
export { TigerGraphError, maskSecret } from './errors.js';
export type { TigerGraphErrorKind } from './errors.js';
export { parseVersion, compareVersions } from './version.js';
export { capabilitiesOf, wireEraOf, getTokenReturnsTriple, renderVersionTable, VERSION_BANDS } from './capabilities.js';
export type { Capabilities } from './capabilities.js';
export type { Version } from './version.js';
export {
  readEnvelope,
  extractToken,
  parseExpiration,
  classifyTokenFailure,
  parseTokenAnswer,
} from './parse-token-response.js';
export {
  cleanGsqlOutput,
  parseCreateSecret,
  parseShowSecrets,
  parseDropSecret,
  requireGraphUsed,
} from './parse-gsql-output.js';
export type * from './types.js';
export { isName, isSecretOrAlias, NAME_MAX_LENGTH, SECRET_MAX_LENGTH } from './names.js';
export { redact } from './redact.js';
export { classifyTransportFailure, transportErrorCode } from './transport-failure.js';
export type { TransportFailure } from './transport-failure.js';

// @tigergraph-bff/codegen: an installed-query listing (`GET /endpoints/<graph>?dynamic=true`) to a TypeScript
// module of typed functions calling @tigergraph-bff/browser. The `tgbff-codegen` bin is cli.ts.
export { generateQueryModule } from './query-module.js';
export type { EndpointListing, GeneratedModule, ModuleOptions } from './query-module.js';
export { commentSafe, mapParam } from './param-types.js';
export type { MappedParam, ParamSpec } from './param-types.js';
export { call, isGraphName, readFromDataServer, readJson, readThroughService, serviceUrl } from './read-listing.js';
export type { ReadHooks } from './read-listing.js';
export { CodegenError, Exit } from './errors.js';
export type { ExitValue } from './errors.js';
export { readConfig } from './config-file.js';
export type { CodegenConfig } from './config-file.js';

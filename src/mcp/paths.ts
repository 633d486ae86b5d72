/** Where the MCP endpoint answers (its own module: the app imports it without loading the endpoint). */
export const MCP_PATH = '/mcp';
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * Why a logout token was refused; the public answer is a plain 400, this goes to the log. On its own so the
 * routes can recognise it without loading jose (and openid-client) when single sign-on is off.
 */
export class LogoutTokenError extends Error {}

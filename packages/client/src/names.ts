/**
 * What TigerGraph accepts as a name, written once: the service's request schemas, the CLI's settings and
 * the secret API all check against these. Names are spliced into GSQL text (`USE GRAPH g`, `DROP SECRET a`),
 * so anything but an identifier is refused rather than quoted.
 */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** GSQL caps identifiers; a longer one can only be a mistake or an attack on our buffers. */
export const NAME_MAX_LENGTH = 128;

/** Longer than any secret TigerGraph issues; caps what a login body may make us send upstream. */
export const SECRET_MAX_LENGTH = 512;

/** A graph name or secret alias: a GSQL identifier of at most NAME_MAX_LENGTH characters. */
export const isName = (value: string): boolean => value.length <= NAME_MAX_LENGTH && IDENTIFIER.test(value);

/**
 * DROP SECRET takes an alias or the secret's own value (generated secrets are letters and digits, and may
 * start with a digit), so it accepts a little more than a name.
 */
export const isSecretOrAlias = (value: string): boolean =>
  value.length <= SECRET_MAX_LENGTH && /^[A-Za-z0-9_]+$/.test(value);

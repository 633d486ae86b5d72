import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { AppError } from '../../errors.js';

const notJson = () => new AppError('unsupported_media_type', 'body: Content-Type must be application/json');

/**
 * The body parser of the JSON routes. A body sent as another type is refused (415) rather than read as
 * absent; bytes that are not UTF-8 are refused rather than decoded into U+FFFD and sent upstream as a
 * credential; any JSON value is parsed, so `null` or `[]` reach the schema, which names what is wrong.
 */
export function jsonBody(limit = '16kb'): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    const length = req.headers['content-length'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    next(hasBody && !req.is('application/json') ? notJson() : undefined);
  };
  const parse = express.json({
    limit,
    strict: false,
    verify: (_req, _res, buf, encoding) => {
      // body-parser maps a verify failure by its `type` (see the error handler's BODY_ERRORS).
      if (encoding.toLowerCase() === 'utf-8' && !isUtf8(buf))
        throw Object.assign(new Error('body is not UTF-8'), { type: 'entity.invalid.utf8' });
    },
  });
  return [requireJson, parse];
}

/**
 * The body of a route whose body is optional and was never required (POST /auth/logout): JSON is parsed,
 * anything else is left unread, as before the route took one.
 */
export function optionalJsonBody(limit = '1kb'): RequestHandler {
  return express.json({ limit, strict: false });
}

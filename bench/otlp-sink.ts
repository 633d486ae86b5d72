import { createServer } from 'node:http';

/**
 * An OTLP/HTTP receiver that reads and drops every export, for subject (g): the BFF's exporter does its
 * whole job (serialise, send, get 200) while nothing downstream costs the machine more than reading.
 */
const port = Number(process.env.PORT);
createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
}).listen(port, '127.0.0.1');

/**
 * Runs the deliberation server of `server.ts` until it is stopped (Ctrl-C), for any HTTP client:
 *
 *   npm run example:deliberation-server            # http://127.0.0.1:8787 (PORT=… for another port)
 *   curl -N -X POST localhost:8787/deliberate -d '{"message": "Help me plan three months of IELTS preparation", "mode": "multi_agent"}'
 */
import { startDeliberationServer } from './server.js';

const port = process.env.PORT === undefined || process.env.PORT === '' ? 8787 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be a port number (got ${JSON.stringify(process.env.PORT)})`);
const server = await startDeliberationServer({ port });
console.log(`Deliberation server on ${server.url} (Ctrl-C stops it). Try:`);
console.log(`curl -N -X POST ${server.url}/deliberate -d '{"message": "Help me plan three months of IELTS preparation", "mode": "multi_agent"}'`);

const stop = () => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
